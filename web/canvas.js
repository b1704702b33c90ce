// web/canvas.js - what the main view's pictures (the bit array, its loupe,
// the charts) share: the page's colours, read from its CSS, and a canvas
// sized for the screen's pixel ratio.

/** The page's colours (style.css's custom properties). */
export const readPalette = () => {
  const style = getComputedStyle(document.documentElement);
  const get = (name) => style.getPropertyValue(name).trim();
  return { unset: get('--unset'), set: get('--set'), insert: get('--insert'), query: get('--query'), model: get('--model'),
    removed: get('--removed'), fg: get('--fg'), muted: get('--muted'), border: get('--border') };
};

/** Sizes `canvas` to cssWidth x cssHeight CSS px at the device's pixel ratio; returns its cleared 2D context. */
export function sizeCanvas(canvas, cssWidth, cssHeight) {
  const ratio = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(cssWidth * ratio)), h = Math.max(1, Math.round(cssHeight * ratio));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  const context = canvas.getContext('2d');
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, cssWidth, cssHeight);
  return context;
}
