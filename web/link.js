// web/link.js - the main view's state in a link: the settings a query string
// gives, the link to the exact state a Playground is in (settings,
// saturation, removals, then the tick), and the address bar kept on it.

/** The settings of a page opened without any. */
export const defaults = Object.freeze({ kind: 'standard', m: 1024, k: 3, n: 200, seed: '1', saturate: false, removals: '', tick: 0 });

/** Settings from a query string; unknown or missing fields take defaults. */
export function readState(search) {
  const params = new URLSearchParams(search);
  const number = (name) => (params.has(name) ? Number(params.get(name)) : defaults[name]);
  return {
    kind: params.get('kind') ?? defaults.kind,
    m: number('m'),
    k: number('k'),
    n: number('n'),
    seed: params.get('seed') ?? defaults.seed,
    saturate: params.get('saturate') === '1',
    removals: params.get('removals') ?? '',
    tick: number('tick'),
  };
}

/** The link to the exact state of Playground `pg`: the settings, saturation, removals, then the tick. */
export function stateLink(pg) {
  const base = location.href.split(/[?#]/)[0];
  const params = new URLSearchParams({ kind: pg.kind(), m: String(pg.bits()), k: String(pg.k()), n: String(pg.n()), seed: pg.seed() });
  if (pg.saturating()) params.set('saturate', '1');
  const removals = pg.removals();
  if (removals) params.set('removals', removals);
  params.set('tick', String(pg.tick()));
  return `${base}?${params}`;
}

/**
 * Keeps the address bar on the state, so reloading or sharing it restores
 * this run. follow(link, now, playing) rewrites it with replaceState (no
 * history entry per tick), at most about three times a second while playing
 * and every 60 ms otherwise: browsers ignore a page that rewrites its
 * address hundreds of times in a few seconds. A rewrite held back is made on
 * a later call; shows(link) says whether the address has caught up.
 */
export function createAddressFollower() {
  let shown = '';  // what the address bar shows now
  let at = 0;      // when it was last rewritten (performance.now())
  return {
    follow(link, now, playing) {
      if (link === shown) return;
      if (now - at < (playing ? 300 : 60)) return;
      history.replaceState(null, '', link);
      shown = link;
      at = now;
    },
    shows: (link) => link === shown,
  };
}
