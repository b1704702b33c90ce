package bloomkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The folder jvm/tools/make_test_inputs.py filled (system property bloomkit.test.dir, set by bloomkit.sh). */
final class TestInputs {
  private TestInputs() {}

  static Path dir() {
    final String d = System.getProperty("bloomkit.test.dir", "");
    assertTrue(!d.isEmpty() && Files.isDirectory(Path.of(d)),
        "bloomkit.test.dir must name the folder jvm/tools/make_test_inputs.py wrote (./bloomkit.sh test runs it)");
    return Path.of(d);
  }

  static byte[] read(String name) throws IOException {
    return Files.readAllBytes(dir().resolve(name));
  }
}
