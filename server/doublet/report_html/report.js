// Doublet's report page: every view drawn from the data inlined in the page.
// Views are routes of the fragment (#/, #/pair/N, #/doc/N), so the browser's back
// button works and a link to one pair can be handed on. Text is always inserted
// as text nodes, never as HTML: a document cannot inject anything into the page.
(function () {
  'use strict';

  const DATA = JSON.parse(document.getElementById('report-data').textContent);
  const DOCS = DATA.documents;
  const PAIRS = DATA.pairs.map((pair, i) => Object.assign({ rank: i + 1 }, pair));
  const PAGE = 100; // rows of the pair table shown at once
  const HEATMAP_MAX = 60; // documents at most for a heatmap
  const GRAPH_MAX = 400; // nodes at most in the cluster graph
  const KINDS = ['verbatim', 'edited', 'paraphrased'];
  const SVG = 'http://www.w3.org/2000/svg';

  const state = {
    threshold: DATA.threshold,
    minScore: 0,
    kind: '',
    name: '',
    sort: { key: 'rank', dir: 1 },
    shown: PAGE,
  };

  // --- small helpers -------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const percent = (value) => `${Math.round(100 * value)}%`;
  const path = (id) => DOCS[id].path;
  const kindsOf = (pair) => KINDS.filter((k) => pair.passages.some((p) => p.kind === k));

  function colour(i, alpha) {
    const hue = (i * 137.508) % 360; // golden angle: neighbours never look alike
    return `hsla(${hue.toFixed(1)}, 80%, 62%, ${alpha})`;
  }

  function linesLabel(side) {
    return side.line === side.end_line ? `line ${side.line}` : `lines ${side.line}–${side.end_line}`;
  }

  // --- clusters: documents linked by pairs at or above the threshold ---------------

  function clusters(threshold) {
    const parent = new Map();
    const find = (x) => {
      while (parent.get(x) !== x) {
        parent.set(x, parent.get(parent.get(x)));
        x = parent.get(x);
      }
      return x;
    };
    const edges = PAIRS.filter((p) => p.similarity >= threshold);
    for (const p of edges) {
      for (const d of [p.a, p.b]) if (!parent.has(d)) parent.set(d, d);
      const ra = find(p.a), rb = find(p.b);
      if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb));
    }
    const groups = new Map();
    for (const d of parent.keys()) {
      const root = find(d);
      if (!groups.has(root)) groups.set(root, { members: [], edges: [] });
      groups.get(root).members.push(d);
    }
    for (const p of edges) groups.get(find(p.a)).edges.push(p);
    return [...groups.values()]
      .map((g) => Object.assign(g, { members: g.members.sort((x, y) => x - y) }))
      .sort((x, y) => y.members.length - x.members.length || x.members[0] - y.members[0]);
  }

  // --- the overview ---------------------------------------------------------------

  function visiblePairs() {
    const name = state.name.trim().toLowerCase();
    const rows = PAIRS.filter(
      (p) =>
        p.similarity >= state.minScore &&
        (!state.kind || p.passages.some((q) => q.kind === state.kind)) &&
        (!name || path(p.a).toLowerCase().includes(name) || path(p.b).toLowerCase().includes(name)),
    );
    const { key, dir } = state.sort;
    const value = {
      rank: (p) => p.rank,
      a: (p) => path(p.a),
      b: (p) => path(p.b),
      similarity: (p) => p.similarity,
      longest: (p) => p.longest,
      passages: (p) => p.passages.length,
    }[key];
    rows.sort((x, y) => {
      const vx = value(x), vy = value(y);
      const order = typeof vx === 'string' ? vx.localeCompare(vy) : vx - vy;
      return dir * order || x.rank - y.rank;
    });
    return rows;
  }

  function overview() {
    const listed = new Set(PAIRS.flatMap((p) => [p.a, p.b]));
    const above = PAIRS.filter((p) => p.similarity >= state.threshold).length;
    const view = el('div', { id: 'overview' },
      el('h1', {}, DATA.title),
      ...DATA.warnings.map((w) => el('p', { class: 'warning' }, 'Warning: ', w)),
      el('div', { class: 'stats' },
        el('div', {}, el('b', { id: 'stat-documents' }, DOCS.length), 'documents'),
        el('div', {}, el('b', { id: 'stat-pairs' }, PAIRS.length), 'pairs share passages'),
        el('div', {}, el('b', {}, listed.size), 'documents in a pair'),
        el('div', {}, el('b', { id: 'stat-above' }, above), el('span', { id: 'stat-above-label' }, `pairs at or above ${percent(state.threshold)}`)),
        DATA.skipped.length ? el('div', {}, el('b', {}, DATA.skipped.length), 'files skipped') : null,
      ),
      el('div', { class: 'controls no-print' },
        el('label', { for: 'threshold' }, 'Threshold'),
        el('input', {
          id: 'threshold', type: 'range', min: 0, max: 1, step: 0.01, value: state.threshold,
          oninput: (e) => { state.threshold = Number(e.target.value); thresholdMoved(); },
        }),
        el('output', { id: 'threshold-value' }, percent(state.threshold)),
        el('span', { class: 'muted' }, 'marks the histogram, links clusters and highlights pairs'),
      ),
      el('div', { class: 'row' },
        el('div', { class: 'card' }, el('h2', {}, 'Similarity of the pairs'), el('div', { id: 'histogram-area' }, histogram())),
        DOCS.length <= HEATMAP_MAX && DOCS.length > 1 ? el('div', { class: 'card' }, el('h2', {}, 'Heatmap'), heatmap()) : null,
      ),
      el('h2', {}, 'Pairs'),
      pairControls(),
      el('div', { id: 'pairs-area' }, pairTable()),
      el('h2', {}, 'Clusters'),
      el('div', { id: 'clusters-area' }, clusterView()),
      skippedList(),
    );
    return view;
  }

  // The parts that depend on the threshold, redrawn while its slider moves (the
  // slider itself stays, so that dragging it goes on).
  function thresholdMoved() {
    document.getElementById('threshold-value').textContent = percent(state.threshold);
    document.getElementById('stat-above').textContent = PAIRS.filter((p) => p.similarity >= state.threshold).length;
    document.getElementById('stat-above-label').textContent = `pairs at or above ${percent(state.threshold)}`;
    document.getElementById('histogram-area').replaceChildren(histogram());
    document.getElementById('clusters-area').replaceChildren(clusterView());
    refreshTable();
  }

  function histogram() {
    const bins = 20, width = 420, height = 160, pad = 26;
    const counts = new Array(bins).fill(0);
    for (const p of PAIRS) counts[Math.min(bins - 1, Math.floor(p.similarity * bins))] += 1;
    const most = Math.max(1, ...counts);
    const bar = (width - 2 * pad) / bins;
    const chart = svg('svg', { id: 'histogram', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'histogram of pair similarities' });
    counts.forEach((count, i) => {
      const h = ((height - 2 * pad) * count) / most;
      const x = pad + i * bar;
      const rect = svg('rect', {
        class: (i + 1) / bins > state.threshold ? 'bar above' : 'bar',
        x: x + 1, y: height - pad - h, width: bar - 2, height: h,
      }, svg('title', {}, `${percent(i / bins)}–${percent((i + 1) / bins)}: ${count} pairs`));
      chart.append(rect);
    });
    const tx = pad + state.threshold * (width - 2 * pad);
    chart.append(svg('line', { class: 'threshold', x1: tx, x2: tx, y1: pad / 2, y2: height - pad }));
    for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
      chart.append(svg('text', { x: pad + tick * (width - 2 * pad), y: height - 8, 'text-anchor': 'middle' }, percent(tick)));
    }
    chart.append(svg('text', { x: pad, y: 12 }, `${most} pairs`));
    return chart;
  }

  function heatmap() {
    const n = DOCS.length, cell = Math.max(6, Math.min(18, Math.floor(420 / n))), left = 34;
    const size = left + n * cell;
    const map = svg('svg', { class: 'heatmap', width: size, height: size, viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-label': 'similarity heatmap' });
    const byCell = new Map();
    for (const p of PAIRS) {
      byCell.set(`${p.a},${p.b}`, p);
      byCell.set(`${p.b},${p.a}`, p);
    }
    for (let i = 0; i < n; i++) {
      map.append(svg('text', { x: left - 4, y: left + i * cell + cell * 0.75, 'text-anchor': 'end' }, i + 1));
      for (let j = 0; j < n; j++) {
        const pair = byCell.get(`${i},${j}`);
        const value = i === j ? 1 : pair ? pair.similarity : 0;
        const shade = i === j ? '#d8dce4' : value ? `rgba(179, 55, 43, ${0.15 + 0.85 * value})` : '#f6f7f9';
        const rect = svg('rect', {
          x: left + j * cell, y: left + i * cell, width: cell, height: cell, fill: shade,
          onclick: pair ? () => { location.hash = `#/pair/${pair.rank}`; } : undefined,
        }, svg('title', {}, i === j ? path(i) : `${path(i)} ~ ${path(j)}: ${percent(value)}`));
        map.append(rect);
      }
    }
    return map;
  }

  function pairControls() {
    const input = (attrs, key, parse) =>
      el('input', Object.assign({}, attrs, {
        value: state[key],
        onchange: (e) => { state[key] = parse(e.target.value); state.shown = PAGE; refreshTable(); },
      }));
    return el('div', { class: 'controls no-print' },
      el('label', { for: 'filter-score' }, 'Similarity at least'),
      input({ id: 'filter-score', type: 'number', min: 0, max: 1, step: 0.05 }, 'minScore', (v) => Math.max(0, Number(v) || 0)),
      el('label', { for: 'filter-kind' }, 'Kind'),
      el('select', {
        id: 'filter-kind',
        onchange: (e) => { state.kind = e.target.value; state.shown = PAGE; refreshTable(); },
      }, el('option', { value: '' }, 'any'), KINDS.map((k) => el('option', { value: k, selected: state.kind === k }, k))),
      el('label', { for: 'filter-name' }, 'Name'),
      el('input', {
        id: 'filter-name', type: 'search', placeholder: 'part of a path', value: state.name,
        oninput: (e) => { state.name = e.target.value; state.shown = PAGE; refreshTable(); },
      }),
    );
  }

  function refreshTable() {
    const area = document.getElementById('pairs-area');
    if (area) area.replaceChildren(pairTable());
  }

  function pairTable() {
    const rows = visiblePairs();
    const header = (key, label, cls) =>
      el('th', {
        class: `sortable ${cls || ''}`,
        'data-key': key,
        'aria-sort': state.sort.key === key ? (state.sort.dir > 0 ? 'ascending' : 'descending') : undefined,
        onclick: () => {
          const numeric = !['a', 'b', 'rank'].includes(key);
          state.sort = state.sort.key === key ? { key, dir: -state.sort.dir } : { key, dir: numeric ? -1 : 1 };
          refreshTable();
        },
      }, label);
    const body = el('tbody', {});
    for (const p of rows.slice(0, state.shown)) {
      body.append(el('tr', {
        class: `pair-row${p.similarity >= state.threshold ? ' above' : ''}`,
        'data-rank': p.rank,
        onclick: (e) => { if (e.target.tagName !== 'A') location.hash = `#/pair/${p.rank}`; },
      },
        el('td', { class: 'num' }, el('a', { href: `#/pair/${p.rank}`, class: 'open-pair' }, p.rank)),
        el('td', {}, el('a', { href: `#/doc/${p.a}` }, path(p.a))),
        el('td', {}, el('a', { href: `#/doc/${p.b}` }, path(p.b))),
        el('td', { class: 'num score' }, percent(p.similarity)),
        el('td', {}, kindsOf(p).map((k) => el('span', { class: `kind ${k}` }, k))),
        el('td', { class: 'num' }, p.passages.length),
        el('td', { class: 'num' }, p.longest),
      ));
    }
    const table = el('table', { id: 'pairs' },
      el('thead', {}, el('tr', {},
        header('rank', '#', 'num'), header('a', 'A'), header('b', 'B'),
        header('similarity', 'Similarity', 'num'), el('th', {}, 'Kinds'),
        header('passages', 'Passages', 'num'), header('longest', 'Longest', 'num'),
      )),
      body,
    );
    const parts = [table, el('p', { class: 'muted', id: 'pairs-count' }, `${Math.min(rows.length, state.shown)} of ${rows.length} pairs shown`)];
    if (rows.length > state.shown) {
      parts.push(el('div', { class: 'more no-print' }, el('button', {
        onclick: () => { state.shown += PAGE; refreshTable(); },
      }, `Show ${Math.min(PAGE, rows.length - state.shown)} more`)));
    }
    if (!PAIRS.length) return el('p', {}, 'No pair of documents shares a passage above the thresholds.');
    return el('div', {}, parts);
  }

  function clusterView() {
    const found = clusters(state.threshold);
    if (!found.length) return el('p', { class: 'muted', id: 'no-clusters' }, `No pair at or above ${percent(state.threshold)}.`);
    const list = el('ol', { id: 'cluster-list' });
    for (const c of found.slice(0, 50)) {
      list.append(el('li', {}, `${c.members.length} documents: `,
        c.members.slice(0, 12).flatMap((d, i) => [i ? ', ' : '', el('a', { href: `#/doc/${d}` }, path(d))]),
        c.members.length > 12 ? ` and ${c.members.length - 12} more` : ''));
    }
    return el('div', { class: 'row' }, el('div', { class: 'card' }, graph(found)), el('div', {}, list));
  }

  // Each cluster laid out on its own by a small force simulation (deterministic: nodes
  // start on a circle), then clusters packed in rows, largest first.
  function graph(found) {
    const width = 640;
    const placed = [];
    let nodes = 0;
    for (const c of found) {
      if (nodes + c.members.length > GRAPH_MAX) break;
      nodes += c.members.length;
      placed.push(layout(c));
    }
    let x = 0, y = 0, rowHeight = 0;
    for (const p of placed) {
      if (x + p.size > width && x > 0) { x = 0; y += rowHeight; rowHeight = 0; }
      p.x = x; p.y = y;
      x += p.size; rowHeight = Math.max(rowHeight, p.size);
    }
    const height = y + rowHeight;
    const chart = svg('svg', { id: 'graph', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'clusters of similar documents' });
    for (const p of placed) {
      for (const e of p.cluster.edges) {
        const a = p.at.get(e.a), b = p.at.get(e.b);
        chart.append(svg('line', {
          class: e.similarity >= 0.8 ? 'strong' : '',
          x1: p.x + a[0], y1: p.y + a[1], x2: p.x + b[0], y2: p.y + b[1],
          'stroke-width': 1 + 3 * e.similarity,
          onclick: () => { location.hash = `#/pair/${e.rank}`; },
        }, svg('title', {}, `${path(e.a)} ~ ${path(e.b)}: ${percent(e.similarity)}`)));
      }
      for (const d of p.cluster.members) {
        const [cx, cy] = p.at.get(d);
        chart.append(svg('circle', {
          cx: p.x + cx, cy: p.y + cy, r: 6, 'data-doc': d,
          onclick: () => { location.hash = `#/doc/${d}`; },
        }, svg('title', {}, path(d))));
      }
    }
    const skipped = found.length - placed.length;
    const note = skipped ? el('p', { class: 'muted' }, `${skipped} smaller clusters not drawn (listed beside).`) : null;
    return el('div', {}, chart, note);
  }

  function layout(cluster) {
    const n = cluster.members.length;
    const size = Math.max(70, Math.min(640, 40 * Math.sqrt(n) + 40));
    const centre = size / 2, radius = size / 2 - 16;
    const pos = cluster.members.map((_, i) => [
      centre + radius * 0.8 * Math.cos((2 * Math.PI * i) / n),
      centre + radius * 0.8 * Math.sin((2 * Math.PI * i) / n),
    ]);
    const index = new Map(cluster.members.map((d, i) => [d, i]));
    const ideal = Math.min(60, (2 * radius) / Math.sqrt(n + 1));
    for (let step = 0; step < (n > 2 ? 150 : 0); step++) {
      const force = pos.map(() => [0, 0]);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          const dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1];
          const d2 = Math.max(1, dx * dx + dy * dy), push = (ideal * ideal) / d2;
          force[i][0] += dx * push * 0.05; force[i][1] += dy * push * 0.05;
          force[j][0] -= dx * push * 0.05; force[j][1] -= dy * push * 0.05;
        }
      }
      for (const e of cluster.edges) {
        const i = index.get(e.a), j = index.get(e.b);
        const dx = pos[j][0] - pos[i][0], dy = pos[j][1] - pos[i][1];
        const d = Math.max(1, Math.hypot(dx, dy)), pull = (d - ideal) / d * 0.1;
        force[i][0] += dx * pull; force[i][1] += dy * pull;
        force[j][0] -= dx * pull; force[j][1] -= dy * pull;
      }
      const cool = 1 - step / 150;
      for (let i = 0; i < n; i++) {
        for (const k of [0, 1]) {
          const move = Math.max(-8, Math.min(8, force[i][k])) * cool;
          pos[i][k] = Math.max(10, Math.min(size - 10, pos[i][k] + move));
        }
      }
    }
    return { cluster, size, at: new Map(cluster.members.map((d, i) => [d, pos[i]])) };
  }

  function skippedList() {
    if (!DATA.skipped.length) return null;
    return el('details', { class: 'no-print' }, el('summary', {}, `${DATA.skipped.length} files skipped`),
      el('ul', {}, DATA.skipped.map((s) => el('li', {}, `${s.path}: ${s.reason}`))));
  }

  // --- one pair, side by side ---------------------------------------------------

  function pairView(rank) {
    const pair = PAIRS[rank - 1];
    if (!pair) return el('p', {}, `No pair ${rank} in this report. `, el('a', { href: '#/' }, 'Back to the overview'));
    const passages = pair.passages.map((p, i) => Object.assign({ index: i }, p));
    const head = (id, coverage) => el('div', {},
      el('h2', {}, el('a', { href: `#/doc/${id}` }, path(id))),
      el('div', { class: 'muted' }, `${DOCS[id].mode} · ${DOCS[id].chars} characters · ${percent(coverage)} in passages`));
    const list = el('ol', { class: 'passage-list', id: 'passages' });
    for (const p of passages) {
      list.append(el('li', { 'data-p': p.index, onclick: () => jump(p.index, 'a', true) },
        el('span', { class: 'swatch', style: `background:${colour(p.index, 0.8)}` }),
        el('span', { class: `kind ${p.kind}` }, p.kind),
        ` score ${p.score.toFixed(2)} · A ${linesLabel(p.a)} ~ B ${linesLabel(p.b)}`));
    }
    const evidence = pair.resemblance
      ? ` · resemblance ${percent(pair.resemblance.score)} (structure ${percent(pair.resemblance.structure)}, literals ${percent(pair.resemblance.literals)}, names ${percent(pair.resemblance.names)})`
      : '';
    return el('div', { id: 'pair-view', 'data-rank': rank },
      el('p', { class: 'no-print' }, el('a', { href: '#/' }, '← Overview')),
      el('h1', {}, `Pair ${rank}: similarity ${percent(pair.similarity)}`),
      el('p', { class: 'muted' }, `${pair.passages.length} passages · longest ${pair.longest} · exact ${percent(pair.exact_coverage || 0)}${evidence}`),
      list,
      el('p', { class: 'legend' }, 'Click a passage on one side to bring the other side to it. Each passage has one colour on both sides.',
        DOCS[pair.a].given || DOCS[pair.b].given ? [' ', el('span', { class: 'given' }, 'Grey text'), ' was given to everyone (a template) and does not count.'] : null),
      el('div', { class: 'pair-head' }, head(pair.a, pair.a_coverage), head(pair.b, pair.b_coverage)),
      el('div', { class: 'sides' }, side(pair.a, passages, 'a'), side(pair.b, passages, 'b')),
    );
  }

  function side(id, passages, which) {
    const text = DATA.texts[String(id)] || '';
    const spans = passages.map((p) => ({ start: p[which].start, end: p[which].end, index: p.index }));
    const given = (DOCS[id].given || []).map(([start, end]) => ({ start, end }));
    const cuts = new Set([0, text.length]);
    for (const s of [...spans, ...given]) { cuts.add(Math.max(0, s.start)); cuts.add(Math.min(text.length, s.end)); }
    const bounds = [...cuts].sort((x, y) => x - y);
    const pre = el('pre', { class: 'side', id: `side-${which}`, 'data-doc': id });
    for (let i = 0; i + 1 < bounds.length; i++) {
      const lo = bounds[i], hi = bounds[i + 1];
      const covering = spans.find((s) => s.start <= lo && hi <= s.end);
      const piece = text.slice(lo, hi);
      if (!covering) {
        const template = given.some((s) => s.start <= lo && hi <= s.end);
        pre.append(template ? el('span', { class: 'given', title: 'text of a template: given to everyone' }, piece) : document.createTextNode(piece));
        continue;
      }
      pre.append(el('mark', {
        'data-p': covering.index,
        style: `background:${colour(covering.index, 0.35)}`,
        title: `passage ${covering.index + 1}`,
        onclick: () => jump(covering.index, which === 'a' ? 'b' : 'a', false),
      }, piece));
    }
    return pre;
  }

  // Bring passage ``index`` into view on side ``to`` (and on both when ``both``), and flash it.
  function jump(index, to, both) {
    for (const which of both ? ['a', 'b'] : [to]) {
      const first = document.querySelector(`#side-${which} mark[data-p="${index}"]`);
      if (first) {
        const pane = document.getElementById(`side-${which}`);
        pane.scrollTop = first.offsetTop - pane.offsetTop - pane.clientHeight / 3;
        if (both && which === 'a') first.scrollIntoView({ block: 'nearest' });
      }
    }
    for (const mark of document.querySelectorAll('.side mark.flash')) mark.classList.remove('flash');
    for (const mark of document.querySelectorAll(`.side mark[data-p="${index}"]`)) mark.classList.add('flash');
    clearTimeout(jump.timer);
    jump.timer = setTimeout(() => {
      for (const mark of document.querySelectorAll('.side mark.flash')) mark.classList.remove('flash');
    }, 1600);
  }

  // --- one document and its partners --------------------------------------------

  function docView(id) {
    if (!DOCS[id]) return el('p', {}, `No document ${id} in this report. `, el('a', { href: '#/' }, 'Back to the overview'));
    const partners = PAIRS.filter((p) => p.a === id || p.b === id);
    const body = el('tbody', {});
    for (const p of partners) {
      const other = p.a === id ? p.b : p.a;
      body.append(el('tr', { class: `pair-row${p.similarity >= state.threshold ? ' above' : ''}`, onclick: () => { location.hash = `#/pair/${p.rank}`; } },
        el('td', {}, el('a', { href: `#/doc/${other}` }, path(other))),
        el('td', { class: 'num score' }, percent(p.similarity)),
        el('td', {}, kindsOf(p).map((k) => el('span', { class: `kind ${k}` }, k))),
        el('td', { class: 'num' }, el('a', { href: `#/pair/${p.rank}` }, `pair ${p.rank}`)),
      ));
    }
    const cluster = clusters(state.threshold).find((c) => c.members.includes(id));
    const student = DOCS[id].group ? submissionView(DOCS[id].group) : null;
    return el('div', { id: 'doc-view', 'data-doc': id },
      el('p', { class: 'no-print' }, el('a', { href: '#/' }, '← Overview')),
      el('h1', {}, path(id)),
      el('p', { class: 'muted' }, (DOCS[id].group ? `handed in by ${DOCS[id].group} · ` : '') +
        `${DOCS[id].mode} · ${DOCS[id].chars} characters · ${partners.length} partners` +
        (cluster ? ` · in a cluster of ${cluster.members.length} at ${percent(state.threshold)}` : '')),
      partners.length
        ? el('table', { id: 'partners' }, el('thead', {}, el('tr', {}, el('th', {}, 'Partner'), el('th', { class: 'num' }, 'Similarity'), el('th', {}, 'Kinds'), el('th', {}, ''))), body)
        : el('p', {}, 'No other document shares a passage with this one.'),
      student,
    );
  }

  // A submission: all documents of one author (a group), and every other author or
  // document they share passages with, by the best pair between them.
  function submissionView(group) {
    const members = DOCS.filter((d) => d.group === group).map((d) => d.id);
    const own = new Set(members);
    const best = new Map();
    for (const p of PAIRS) {
      if (own.has(p.a) === own.has(p.b)) continue;
      const other = own.has(p.a) ? p.b : p.a;
      const key = DOCS[other].group || path(other);
      if (!best.has(key) || best.get(key).similarity < p.similarity) best.set(key, p);
    }
    const rows = [...best.entries()].sort((x, y) => y[1].similarity - x[1].similarity);
    return el('div', { id: 'submission-view' },
      el('h2', {}, `The submission of ${group}: ${members.length} document${members.length === 1 ? '' : 's'}`),
      el('p', {}, members.flatMap((d, i) => [i ? ', ' : '', el('a', { href: `#/doc/${d}` }, path(d))])),
      rows.length
        ? el('table', { id: 'submission-partners' },
          el('thead', {}, el('tr', {}, el('th', {}, 'Shares passages with'), el('th', { class: 'num' }, 'Best pair'), el('th', {}, ''))),
          el('tbody', {}, rows.map(([key, p]) => el('tr', { class: `pair-row${p.similarity >= state.threshold ? ' above' : ''}`, onclick: () => { location.hash = `#/pair/${p.rank}`; } },
            el('td', {}, key),
            el('td', { class: 'num score' }, percent(p.similarity)),
            el('td', { class: 'num' }, el('a', { href: `#/pair/${p.rank}` }, `pair ${p.rank}`)),
          ))))
        : el('p', {}, 'No other submission shares a passage with this one.'),
    );
  }

  // --- routing ------------------------------------------------------------------

  function render() {
    const view = document.getElementById('view');
    const route = location.hash.replace(/^#\/?/, '').split('/');
    let content;
    if (route[0] === 'pair') content = pairView(Number(route[1]));
    else if (route[0] === 'doc') content = docView(Number(route[1]));
    else content = overview();
    view.replaceChildren(content);
  }

  document.getElementById('title').textContent = DATA.title;
  window.addEventListener('hashchange', () => { render(); window.scrollTo(0, 0); });
  render();
})();
