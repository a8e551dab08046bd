/* hoplab view: animate one run on a Canvas 2D, from the JSON page.py inlined.
 *
 * Positions are the movement table's legs, walked exactly as the engine
 * walks them (mobility.rs; formats/ns2/movement.py `_along`: the fraction
 * of the leg's time elapsed, along a straight line, then standing at its end).
 * A frame is drawn while it is on the air, from its start to start + airtime,
 * with its decode and carrier-sense reach; the last moments' frames fade out
 * behind it so that something is seen at any speed.
 *
 * window.anim = {seek(t), play(), pause(), state(), select({node}|{flow})}
 * for tests and for the console. page.py inlines this file in a script
 * element: it must never hold the tag that closes one, nor an HTML comment's start.
 */
(function () {
  'use strict';

  const D = JSON.parse(document.getElementById('hoplab-data').textContent);
  const M = D.meta, F = D.frames, X = D.drops, FLOWS = D.flows, RE = D.route_events, NAMES = D.names;
  const N = M.nodes, NF = F.t.length, ND = X.t.length;
  const T0 = M.start_s, T1 = M.end_s;

  // ------------------------------------------------------------- colours
  const FRAME_COLOUR = { tcp: '#2b6cb0', ack: '#2f9e44', cbr: '#0b7285', routing: '#e8590c', ARP: '#868e96', MAC: '#868e96' };
  const CONTROL_COLOUR = '#8a93a6';
  const FLOW_COLOUR = ['#c92a2a', '#7048e8', '#0c8599', '#e67700', '#d6336c', '#5c940d', '#364fc7', '#862e9c', '#495057'];
  const DROP_COLOUR = { IFQ: '#f08c00', RET: '#e03131', COL: '#ae3ec9', NRTE: '#5f3dc4', TTL: '#1864ab', CBK: '#a61e4d',
    LOOP: '#087f5b', TOUT: '#0b7285', QFULL: '#c2255c', SAL: '#5c940d', ARP: '#868e96', DUP: '#495057', BSY: '#66a80f',
    END: '#adb5bd' };
  const EXTRA_DROP = ['#343a40', '#15aabf', '#fab005', '#82c91e'];
  function flowColour(i) { return FLOW_COLOUR[i % FLOW_COLOUR.length]; }
  function dropColour(code) {
    if (DROP_COLOUR[code]) return DROP_COLOUR[code];
    return EXTRA_DROP[Math.abs(hash(code)) % EXTRA_DROP.length];
  }
  function hash(s) { let h = 0; for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0; return h; }
  function frameColour(i) {
    const kind = NAMES.kind[F.kind[i]];
    return kind === 'DATA' ? (FRAME_COLOUR[NAMES.ptype[F.ptype[i]]] || '#495057') : CONTROL_COLOUR;
  }
  function alpha(hex, a) {
    const v = parseInt(hex.slice(1), 16);
    return 'rgba(' + (v >> 16 & 255) + ',' + (v >> 8 & 255) + ',' + (v & 255) + ',' + a + ')';
  }

  // ------------------------------------------------------------ positions
  // legs[n]: t0, x, y, to_x, to_y, speed per leg, in time order.
  function posAt(n, t) {
    const L = D.legs[n];
    if (!L || L.length === 0) return [NaN, NaN];
    let lo = 0, hi = L.length / 6;
    while (lo < hi) { const m = (lo + hi) >> 1; if (L[m * 6] <= t) lo = m + 1; else hi = m; }
    const k = Math.max(lo - 1, 0) * 6;
    if (lo === 0) return [L[k + 1], L[k + 2]];  // before its first row: where it starts
    const fx = L[k + 1], fy = L[k + 2], tx = L[k + 3], ty = L[k + 4], v = L[k + 5];
    const d = Math.hypot(tx - fx, ty - fy);
    if (v <= 0 || d === 0) return [fx, fy];
    const total = d / v, dt = t - L[k];
    if (dt >= total) return [tx, ty];
    const f = dt / total;
    return [fx + (tx - fx) * f, fy + (ty - fy) * f];
  }
  function legAt(n, t) {
    const L = D.legs[n];
    let lo = 0, hi = L.length / 6;
    while (lo < hi) { const m = (lo + hi) >> 1; if (L[m * 6] <= t) lo = m + 1; else hi = m; }
    const k = Math.max(lo - 1, 0) * 6;
    const p = posAt(n, t);
    const moving = L[k + 5] > 0 && Math.hypot(L[k + 3] - p[0], L[k + 4] - p[1]) > 1e-9;
    return { moving: moving, speed: moving ? L[k + 5] : 0, to: [L[k + 3], L[k + 4]] };
  }

  // --------------------------------------------------------------- events
  let maxSpeed = 0;
  for (const L of D.legs) for (let k = 5; k < L.length; k += 6) if (L[k] > maxSpeed) maxSpeed = L[k];
  let maxAir = 0;
  for (let i = 0; i < NF; i++) if (F.air[i] > maxAir) maxAir = F.air[i];
  function upper(arr, t) {  // first index with arr[i] > t
    let lo = 0, hi = arr.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (arr[m] <= t) lo = m + 1; else hi = m; }
    return lo;
  }
  function framesOnAir(t) {
    const out = [];
    for (let i = upper(F.t, t) - 1; i >= 0 && F.t[i] >= t - maxAir; i--) {
      if (t < F.t[i] + (F.air[i] || 0)) out.push(i);
    }
    return out.reverse();
  }
  function framesEndedWithin(t, span, limit) {  // frames off the air at t that ended in (t - span, t]
    const out = [];
    for (let i = upper(F.t, t) - 1; i >= 0 && F.t[i] >= t - span - maxAir && out.length < limit; i--) {
      const end = F.t[i] + (F.air[i] || 0);
      if (end <= t && end > t - span) out.push(i);
    }
    return out;
  }
  const perNode = {};  // node -> its frames' start times, built when first asked
  function framesSentBy(n, t) {
    if (!perNode[n]) { const a = []; for (let i = 0; i < NF; i++) if (F.tx[i] === n) a.push(F.t[i]); perNode[n] = a; }
    return [upper(perNode[n], t), perNode[n].length];
  }
  function dropsAt(n, t) {
    let c = 0; const e = upper(X.t, t);
    for (let i = 0; i < e; i++) if (X.node[i] === n) c++;
    return c;
  }
  function pathAt(f, t) {  // the flow's path at t (null: none drawn)
    const P = FLOWS[f].paths;
    let lo = 0, hi = P.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (P[m][0] <= t) lo = m + 1; else hi = m; }
    return lo === 0 ? null : P[lo - 1][1];
  }
  function seriesAt(s, t) {  // a step series' value at t
    const i = upper(s.t, t) - 1;
    return i < 0 ? null : s.v[i];
  }

  // ---------------------------------------------------------------- state
  const SPEEDS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 500];
  const S = { t: T0, playing: false, speed: 1, selNode: -1, selFlow: -1, last: 0, drawn: null };
  (function defaultSpeed() {  // about a minute for the whole window
    const want = (T1 - T0) / 60;
    let best = SPEEDS[0];
    for (const s of SPEEDS) if (Math.abs(Math.log(s / want)) < Math.abs(Math.log(best / want))) best = s;
    S.speed = best;
  })();
  function trailSpan() { return Math.min(Math.max(S.speed * 0.12, 0.004), 2.0); }
  function markSpan() { return Math.min(Math.max(S.speed * 1.0, 0.05), 30.0); }

  // ------------------------------------------------------------------ DOM
  const $ = function (id) { return document.getElementById(id); };
  const map = $('map'), thr = $('thr'), cwnd = $('cwnd');
  const seek = $('seek'), clock = $('clock'), playBtn = $('play'), speedSel = $('speed');
  $('run-title').textContent = M.scenario + (M.seed !== null && M.seed !== undefined ? ' · seed ' + M.seed : '') +
    (M.routing ? ' · ' + M.routing : '') + ' · ' + fmt(T0, 3) + '–' + fmt(T1, 3) + ' s';
  $('node-count').textContent = String(N);
  $('frame-count').textContent = NF.toLocaleString('en-US');
  $('drop-count').textContent = ND.toLocaleString('en-US');
  seek.min = String(T0); seek.max = String(T1); seek.value = String(T0);
  for (const s of SPEEDS) {
    const o = document.createElement('option');
    o.value = String(s); o.textContent = s + '×';
    if (s === S.speed) o.selected = true;
    speedSel.appendChild(o);
  }
  function fmt(v, d) { return v === null || v === undefined || Number.isNaN(v) ? '–' : Number(v).toFixed(d); }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }

  // flows list
  const flowList = $('flows');
  FLOWS.forEach(function (fl, i) {
    const li = document.createElement('li');
    li.dataset.flow = String(i);
    li.innerHTML = '<span class="swatch" style="background:' + flowColour(i) + '"></span>' +
      '<span>flow ' + fl.id + ': ' + fl.src + ' → ' + fl.dst + ' <span class="muted">' + esc(fl.kind) +
      (fl.throughput_kbps !== null ? ', ' + fmt(fl.throughput_kbps, 1) + ' kbit/s' : '') + '</span></span>';
    li.addEventListener('click', function () { select({ flow: S.selFlow === i ? -1 : i }); });
    flowList.appendChild(li);
  });
  if (FLOWS.length === 0) flowList.innerHTML = '<li class="muted">no flows</li>';

  // legend
  (function legend() {
    const rows = [];
    const sw = function (body) { return '<svg width="18" height="14" viewBox="0 0 18 14">' + body + '</svg>'; };
    const line = function (c, dash) { return sw('<line x1="1" y1="7" x2="17" y2="7" stroke="' + c + '" stroke-width="2.5"' + (dash ? ' stroke-dasharray="3 2"' : '') + '/>'); };
    const used = {};
    for (let i = 0; i < NF; i++) used[NAMES.kind[F.kind[i]] === 'DATA' ? NAMES.ptype[F.ptype[i]] : 'control'] = true;
    const label = { tcp: 'TCP data', ack: 'TCP ACK', cbr: 'CBR data', routing: 'routing', ARP: 'ARP', MAC: 'MAC' };
    for (const k of Object.keys(FRAME_COLOUR)) if (used[k]) rows.push(line(FRAME_COLOUR[k]) + label[k] + ' frame');
    if (used.control) rows.push(line(CONTROL_COLOUR) + 'RTS / CTS / ACK');
    rows.push(sw('<circle cx="9" cy="7" r="6" fill="rgba(43,108,176,.15)" stroke="rgba(43,108,176,.6)"/>') +
      'decode reach, ' + fmt(M.tx_range_m, 0) + ' m');
    rows.push(sw('<circle cx="9" cy="7" r="6" fill="none" stroke="#8a93a6" stroke-dasharray="2 2"/>') +
      'carrier-sense reach, ' + fmt(M.cs_range_m, 0) + ' m');
    rows.push(line('#c92a2a') + 'a flow’s current path');
    rows.push(line('#e03131', true) + 'link declared broken');
    const reasons = {};
    for (let i = 0; i < ND; i++) reasons[NAMES.reason[X.reason[i]]] = (reasons[NAMES.reason[X.reason[i]]] || 0) + 1;
    for (const code of Object.keys(reasons).sort()) {
      const c = dropColour(code);
      rows.push(sw('<path d="M4 2 L14 12 M14 2 L4 12" stroke="' + c + '" stroke-width="3"/>') + 'drop ' + esc(code) +
        (NAMES.reason_text[code] ? ': ' + esc(NAMES.reason_text[code]) : '') + ' <span class="muted">(' + reasons[code] + ')</span>');
    }
    $('legend').innerHTML = rows.map(function (r) {
      const k = r.indexOf('</svg>') + 6;
      return '<div class="row">' + r.slice(0, k) + '<span>' + r.slice(k) + '</span></div>';
    }).join('');
  })();

  // ----------------------------------------------------------- the canvas
  const view = { w: 0, h: 0, s: 1, ox: 0, oy: 0, pad: 26 };
  function fit(canvas, cssH) {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 800;
    canvas.style.height = cssH + 'px';
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(cssH * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return [ctx, w, cssH];
  }
  let mctx, tctx, cctx;
  function layout() {
    const a = M.area, aw = Math.max(a[2] - a[0], 1), ah = Math.max(a[3] - a[1], 1);
    const w = map.clientWidth || 800, pad = view.pad;
    const maxH = Math.max(260, window.innerHeight * 0.62);
    let s = (w - 2 * pad) / aw;
    let h = ah * s + 2 * pad;
    if (h > maxH) { h = maxH; s = (h - 2 * pad) / ah; }
    h = Math.max(h, 160);
    const r = fit(map, Math.round(h));
    mctx = r[0]; view.w = r[1]; view.h = r[2]; view.s = s;
    view.ox = (view.w - aw * s) / 2 - a[0] * s;          // centred
    view.oy = (view.h + ah * s) / 2 + a[1] * s;          // y up, as plot topology draws
    tctx = fit(thr, 150)[0]; cctx = fit(cwnd, 150)[0];
  }
  function px(p) { return [view.ox + p[0] * view.s, view.oy - p[1] * view.s]; }

  function arrow(ctx, a, b, colour, width, r) {
    const dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy);
    if (len < 2 * r + 2) return;
    const ux = dx / len, uy = dy / len;
    const s = [a[0] + ux * r, a[1] + uy * r], e = [b[0] - ux * r, b[1] - uy * r];
    ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.beginPath(); ctx.moveTo(s[0], s[1]); ctx.lineTo(e[0], e[1]); ctx.stroke();
    const hl = 4 + width * 2;
    ctx.fillStyle = colour; ctx.beginPath(); ctx.moveTo(e[0], e[1]);
    ctx.lineTo(e[0] - ux * hl - uy * hl * 0.5, e[1] - uy * hl + ux * hl * 0.5);
    ctx.lineTo(e[0] - ux * hl + uy * hl * 0.5, e[1] - uy * hl - ux * hl * 0.5); ctx.closePath(); ctx.fill();
  }
  function cross(ctx, c, r, colour, a) {
    ctx.strokeStyle = alpha(colour, a); ctx.lineWidth = 3; ctx.beginPath();
    ctx.moveTo(c[0] - r, c[1] - r); ctx.lineTo(c[0] + r, c[1] + r); ctx.moveTo(c[0] + r, c[1] - r); ctx.lineTo(c[0] - r, c[1] + r);
    ctx.stroke();
  }

  function drawMap(t) {
    const ctx = mctx, s = view.s, a = M.area;
    ctx.clearRect(0, 0, view.w, view.h);
    // the area and a scale bar
    const p0 = px([a[0], a[1]]), p1 = px([a[2], a[3]]);
    ctx.fillStyle = '#ffffff'; ctx.fillRect(p0[0], p1[1], p1[0] - p0[0], p0[1] - p1[1]);
    ctx.strokeStyle = '#d5dae3'; ctx.lineWidth = 1; ctx.strokeRect(p0[0], p1[1], p1[0] - p0[0], p0[1] - p1[1]);
    const bar = Math.pow(10, Math.floor(Math.log10((a[2] - a[0]) / 4 || 1)));
    ctx.strokeStyle = '#6b7385'; ctx.lineWidth = 2; ctx.beginPath();
    ctx.moveTo(p0[0], view.h - 8); ctx.lineTo(p0[0] + bar * s, view.h - 8); ctx.stroke();
    ctx.fillStyle = '#6b7385'; ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'left';
    ctx.fillText(bar + ' m', p0[0] + bar * s + 6, view.h - 4);

    const pos = []; const P = [];
    for (let n = 0; n < N; n++) { pos.push(posAt(n, t)); P.push(px(pos[n])); }
    // where each moving node has been lately: a fading track about 40 px long at the fastest speed
    const back = Math.min(Math.max(40 / (view.s * (maxSpeed || 1)), 0.5), 300);
    ctx.lineCap = 'round';
    for (let n = 0; n < N; n++) {
      let prev = P[n];
      for (let k = 1; k <= 10; k++) {
        const tk = t - back * k / 10;
        if (tk < 0) break;
        const q = px(posAt(n, tk));
        if (Math.abs(q[0] - prev[0]) + Math.abs(q[1] - prev[1]) > 0.05) {
          ctx.strokeStyle = 'rgba(90,100,120,' + (0.45 * (1 - (k - 1) / 10)) + ')'; ctx.lineWidth = 3;
          ctx.beginPath(); ctx.moveTo(prev[0], prev[1]); ctx.lineTo(q[0], q[1]); ctx.stroke();
        }
        prev = q;
      }
    }
    ctx.lineCap = 'butt';
    const onAir = framesOnAir(t);
    const busy = {};
    // reach of each frame on the air: carrier sense (dashed), decode (filled)
    for (const i of onAir) {
      const c = P[F.tx[i]], col = frameColour(i);
      ctx.setLineDash([4, 4]); ctx.strokeStyle = 'rgba(110,118,135,.45)'; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.arc(c[0], c[1], M.cs_range_m * s, 0, 2 * Math.PI); ctx.stroke(); ctx.setLineDash([]);
      ctx.fillStyle = alpha(col, 0.10); ctx.strokeStyle = alpha(col, 0.55); ctx.lineWidth = 1.2;
      ctx.beginPath(); ctx.arc(c[0], c[1], M.tx_range_m * s, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      busy[F.tx[i]] = col;
    }
    // each flow's current path
    const paths = {};
    FLOWS.forEach(function (fl, f) {
      const path = pathAt(f, t);
      paths[fl.id] = path;
      if (!path || path.length < 2) return;
      const dim = S.selFlow >= 0 && S.selFlow !== f;
      ctx.strokeStyle = alpha(flowColour(f), dim ? 0.12 : (S.selFlow === f ? 0.6 : 0.32));
      ctx.lineWidth = S.selFlow === f ? 11 : 8; ctx.lineJoin = 'round'; ctx.lineCap = 'round';
      ctx.beginPath();
      path.forEach(function (n, k) { const q = P[n]; if (k === 0) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]); });
      ctx.stroke();
    });
    ctx.lineCap = 'butt';
    // links declared broken lately
    const mark = markSpan();
    for (let i = upper(RE.t, t) - 1; i >= 0 && RE.t[i] > t - mark; i--) {
      if (RE.event[i] !== 'link_broken' || RE.peer[i] < 0 || RE.peer[i] >= N) continue;
      const fade = 1 - (t - RE.t[i]) / mark;
      ctx.setLineDash([6, 4]); ctx.strokeStyle = alpha('#e03131', 0.9 * fade); ctx.lineWidth = 2.5;
      const q = P[RE.node[i]], r = P[RE.peer[i]];
      ctx.beginPath(); ctx.moveTo(q[0], q[1]); ctx.lineTo(r[0], r[1]); ctx.stroke(); ctx.setLineDash([]);
    }
    // frames that just left the air, fading; then those on it
    const span = trailSpan(), trail = framesEndedWithin(t, span, 400);
    for (let k = trail.length - 1; k >= 0; k--) {
      const i = trail[k];
      if (F.rx[i] < 0 || F.rx[i] >= N) continue;
      const age = (t - F.t[i] - (F.air[i] || 0)) / span;
      arrow(ctx, P[F.tx[i]], P[F.rx[i]], alpha(frameColour(i), 0.5 * (1 - age)), 1.5, 9);
    }
    for (const i of onAir) {
      if (F.rx[i] < 0 || F.rx[i] >= N) continue;
      arrow(ctx, P[F.tx[i]], P[F.rx[i]], frameColour(i), 2.5, 9);
    }
    // drops, by cause
    const drops = [];
    for (let i = upper(X.t, t) - 1; i >= 0 && X.t[i] > t - mark; i--) {
      const n = X.node[i];
      if (n < 0 || n >= N) continue;
      const code = NAMES.reason[X.reason[i]];
      drops.push({ node: n, reason: code, t: X.t[i] });
      const k = drops.length % 6, q = P[n];
      cross(ctx, [q[0] + 11 + (k % 3) * 5, q[1] - 11 - Math.floor(k / 3) * 5], 4.5, dropColour(code), 0.25 + 0.75 * (1 - (t - X.t[i]) / mark));
    }
    // the nodes
    const ends = {};  // a flow's source and destination: a ring of the flow's colour
    FLOWS.forEach(function (fl, f) { ends[fl.src] = ends[fl.src] || flowColour(f); ends[fl.dst] = ends[fl.dst] || flowColour(f); });
    ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    for (let n = 0; n < N; n++) {
      const q = P[n], r = 8;
      if (n === S.selNode) {
        ctx.strokeStyle = 'rgba(43,108,176,.7)'; ctx.lineWidth = 1.5; ctx.setLineDash([3, 3]);
        ctx.beginPath(); ctx.arc(q[0], q[1], M.tx_range_m * s, 0, 2 * Math.PI); ctx.stroke(); ctx.setLineDash([]);
        ctx.fillStyle = 'rgba(43,108,176,.25)'; ctx.beginPath(); ctx.arc(q[0], q[1], r + 7, 0, 2 * Math.PI); ctx.fill();
      }
      if (ends[n]) {
        ctx.strokeStyle = ends[n]; ctx.lineWidth = 3;
        ctx.beginPath(); ctx.arc(q[0], q[1], r + 3.5, 0, 2 * Math.PI); ctx.stroke();
      }
      ctx.fillStyle = busy[n] || '#ffffff';
      ctx.strokeStyle = n === S.selNode ? '#1d4f91' : '#39414f'; ctx.lineWidth = n === S.selNode ? 2.5 : 1.3;
      ctx.beginPath(); ctx.arc(q[0], q[1], r, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      ctx.fillStyle = busy[n] ? '#ffffff' : '#1d2330'; ctx.font = (N > 99 ? '8px' : '9px') + ' system-ui, sans-serif';
      ctx.fillText(String(n), q[0], q[1] + 0.5);
    }
    ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
    // the clock on the map
    ctx.fillStyle = '#1d2330'; ctx.font = '600 13px system-ui, sans-serif';
    ctx.fillText('t = ' + fmt(t, 6) + ' s', 8, 17);
    ctx.fillStyle = '#6b7385'; ctx.font = '11px system-ui, sans-serif';
    ctx.fillText(onAir.length + ' on the air', 8, 32);
    return {
      nodes: pos.map(function (p, n) { return { id: n, x: p[0], y: p[1] }; }),
      frames_on_air: onAir.map(function (i) {
        return { index: i, t: F.t[i], airtime: F.air[i], tx: F.tx[i], rx: F.rx[i], kind: NAMES.kind[F.kind[i]],
          packet_type: NAMES.ptype[F.ptype[i]] };
      }),
      trail: trail.length, drops_shown: drops, paths: paths,
    };
  }

  // -------------------------------------------------------------- the plots
  function drawPlot(ctx, canvas, key, t, unit) {
    const w = canvas.clientWidth || 400, h = 150, l = 46, r = 10, top = 8, bottom = 22;
    ctx.clearRect(0, 0, w, h);
    let ymax = 0;
    FLOWS.forEach(function (fl) { for (const v of fl[key].v) if (v > ymax) ymax = v; });
    ymax = ymax > 0 ? niceCeil(ymax) : 1;
    const X0 = l, X1 = w - r, Y0 = h - bottom, Y1 = top;
    const xs = function (v) { return X0 + (v - T0) / ((T1 - T0) || 1) * (X1 - X0); };
    const ys = function (v) { return Y0 - v / ymax * (Y0 - Y1); };
    ctx.strokeStyle = '#e6e9ef'; ctx.lineWidth = 1; ctx.fillStyle = '#6b7385'; ctx.font = '10px system-ui, sans-serif';
    for (let k = 0; k <= 4; k++) {
      const v = ymax * k / 4, y = ys(v);
      ctx.beginPath(); ctx.moveTo(X0, y); ctx.lineTo(X1, y); ctx.stroke();
      ctx.textAlign = 'right'; ctx.fillText(trim(v), X0 - 4, y + 3);
    }
    ctx.textAlign = 'center';
    for (let k = 0; k <= 5; k++) {
      const v = T0 + (T1 - T0) * k / 5;
      ctx.textAlign = k === 5 ? 'right' : 'center';  // the last label inside the canvas
      ctx.fillText(trim(v) + (k === 5 ? ' s' : ''), k === 5 ? X1 + r : xs(v), h - 6);
    }
    FLOWS.forEach(function (fl, f) {
      const s = fl[key]; if (!s.t.length) return;
      const dim = S.selFlow >= 0 && S.selFlow !== f;
      ctx.strokeStyle = alpha(flowColour(f), dim ? 0.2 : 0.95); ctx.lineWidth = S.selFlow === f ? 2.4 : 1.4;
      ctx.beginPath();
      for (let i = 0; i < s.t.length; i++) {
        const x = xs(s.t[i]), y = ys(s.v[i]);
        if (i === 0) ctx.moveTo(x, y);
        else if (key === 'cwnd') { ctx.lineTo(x, ys(s.v[i - 1])); ctx.lineTo(x, y); }  // a window is a step
        else ctx.lineTo(x, y);
      }
      if (key === 'cwnd') ctx.lineTo(xs(Math.min(T1, Math.max(s.t[s.t.length - 1], fl.end_s))), ys(s.v[s.v.length - 1]));
      ctx.stroke();
    });
    ctx.strokeStyle = '#1d2330'; ctx.lineWidth = 1; ctx.beginPath(); ctx.moveTo(xs(t), Y0); ctx.lineTo(xs(t), Y1); ctx.stroke();
  }
  function niceCeil(v) { const p = Math.pow(10, Math.floor(Math.log10(v))); for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p; return 10 * p; }
  function trim(v) { return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1).replace(/\.0$/, '') : v.toFixed(2).replace(/\.?0+$/, ''); }

  // ------------------------------------------------------------ the panels
  function table(rows) {
    return '<table>' + rows.map(function (r) { return '<tr><td>' + esc(r[0]) + '</td><td>' + r[1] + '</td></tr>'; }).join('') + '</table>';
  }
  function drawInfo(t, drawn) {
    const info = $('info');
    if (S.selNode >= 0) {
      const n = S.selNode, p = drawn.nodes[n], leg = legAt(n, t), sent = framesSentBy(n, t), c = D.nodes[n] || {};
      const on = FLOWS.filter(function (fl) { const q = drawn.paths[fl.id]; return q && q.indexOf(n) >= 0; })
        .map(function (fl) { return 'flow ' + fl.id; });
      info.className = '';
      info.innerHTML = '<b>node ' + n + '</b>' + table([
        ['position', fmt(p.x, 1) + ', ' + fmt(p.y, 1) + ' m'],
        ['moving', leg.moving ? fmt(leg.speed, 2) + ' m/s to ' + fmt(leg.to[0], 0) + ', ' + fmt(leg.to[1], 0) : 'standing'],
        ['frames sent', sent[0].toLocaleString('en-US') + ' of ' + sent[1].toLocaleString('en-US')],
        ['drops so far', String(dropsAt(n, t))],
        ['on the path of', on.length ? on.join(', ') : '–'],
        ['over the run', 'MAC frames ' + fmt(c.mac_frames_sent, 0) + ', forwarded ' + fmt(c.forwarded, 0) +
          ', collisions ' + fmt(c.rx_collisions, 0) + ', queue max ' + fmt(c.ifq_max, 0)],
      ]);
    } else if (S.selFlow >= 0) {
      const fl = FLOWS[S.selFlow], path = drawn.paths[fl.id];
      info.className = '';
      info.innerHTML = '<b style="color:' + flowColour(S.selFlow) + '">flow ' + fl.id + '</b> ' + esc(fl.kind) + ', ' +
        fl.src + ' → ' + fl.dst + table([
          ['path now', path && path.length > 1 ? path.join(' → ') + ' (' + (path.length - 1) + ' hops' +
            (path[path.length - 1] === fl.dst ? '' : ', so far') + ')' : 'none (no data frame in the last second)'],
          ['cwnd now', fmt(seriesAt(fl.cwnd, t), 0)],
          ['throughput now', fmt(seriesAt(fl.throughput, t + 1e-12), 1) + ' kbit/s'],
          ['over the run', fmt(fl.throughput_kbps, 1) + ' kbit/s, ' + fl.bytes_delivered.toLocaleString('en-US') +
            ' B, ' + fl.retransmissions + ' retransmissions, ' + fl.timeouts + ' timeouts'],
          ['RTT mean', fmt(fl.rtt_mean_ms, 1) + ' ms'],
        ]);
    } else {
      info.className = 'muted';
      info.textContent = 'click a node on the map, or a flow above';
    }
    const ev = $('events'), e = upper(RE.t, t), rows = [];
    for (let i = e - 1; i >= 0 && rows.length < 8; i--) {
      const now = RE.t[i] > t - markSpan();
      rows.push('<li' + (now ? ' class="now"' : '') + '>' + fmt(RE.t[i], 3) + ' s · node ' + RE.node[i] + ' ' +
        esc(RE.event[i].replace(/_/g, ' ')) + (RE.peer[i] >= 0 ? ' ' + RE.peer[i] : '') + (RE.cause[i] ? ' (' + esc(RE.cause[i]) + ')' : '') + '</li>');
    }
    ev.innerHTML = rows.length ? rows.join('') : '<li>none yet</li>';
    for (const li of flowList.children) li.classList.toggle('sel', Number(li.dataset.flow) === S.selFlow);
  }

  // ---------------------------------------------------------------- render
  function render() {
    const t = S.t;
    const drawn = drawMap(t);
    drawPlot(tctx, thr, 'throughput', t);
    drawPlot(cctx, cwnd, 'cwnd', t);
    drawInfo(t, drawn);
    clock.textContent = fmt(t, 3) + ' / ' + fmt(T1, 3) + ' s';
    if (Number(seek.value) !== t) seek.value = String(t);
    playBtn.innerHTML = S.playing ? '&#10074;&#10074;' : '&#9654;';
    S.drawn = drawn;
  }
  function tick(now) {
    if (!S.playing) return;
    const dt = S.last ? (now - S.last) / 1000 : 0;
    S.last = now;
    S.t = Math.min(T1, S.t + dt * S.speed);
    if (S.t >= T1) S.playing = false;
    render();
    if (S.playing) requestAnimationFrame(tick);
  }
  function play() {
    if (S.playing) return;
    if (S.t >= T1) S.t = T0;
    S.playing = true; S.last = 0; render(); requestAnimationFrame(tick);
  }
  function pause() { S.playing = false; render(); }
  function seekTo(t) { S.t = Math.min(T1, Math.max(T0, Number(t))); render(); }
  function select(what) {
    if (what && 'node' in what) { S.selNode = what.node; S.selFlow = -1; }
    if (what && 'flow' in what) { S.selFlow = what.flow; S.selNode = -1; }
    render();
  }

  playBtn.addEventListener('click', function () { if (S.playing) pause(); else play(); });
  seek.addEventListener('input', function () { seekTo(seek.value); });
  speedSel.addEventListener('change', function () { S.speed = Number(speedSel.value); render(); });
  map.addEventListener('click', function (ev) {
    const b = map.getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
    let best = -1, bd = 14;
    for (let n = 0; n < N; n++) {
      const q = px(posAt(n, S.t)), d = Math.hypot(q[0] - x, q[1] - y);
      if (d < bd) { bd = d; best = n; }
    }
    select({ node: best === S.selNode ? -1 : best });
  });
  [thr, cwnd].forEach(function (c) {
    c.addEventListener('click', function (ev) {
      const b = c.getBoundingClientRect(), l = 46, r = 10;
      seekTo(T0 + (ev.clientX - b.left - l) / (b.width - l - r) * (T1 - T0));
    });
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.target && ev.target.tagName === 'SELECT') return;
    if (ev.code === 'Space') { ev.preventDefault(); if (S.playing) pause(); else play(); }
    if (ev.code === 'ArrowRight') seekTo(S.t + S.speed);
    if (ev.code === 'ArrowLeft') seekTo(S.t - S.speed);
  });
  window.addEventListener('resize', function () { layout(); render(); });

  window.anim = {
    seek: seekTo, play: play, pause: pause, select: select,
    screen_xy: function (n) { return px(posAt(n, S.t)); },  // where node n is drawn, CSS pixels in the map
    state: function () {
      const d = S.drawn;
      return {
        time: S.t, playing: S.playing, speed: S.speed, start: T0, end: T1,
        node_count: N, frame_count: NF, drop_count: ND, flow_count: FLOWS.length,
        nodes: d.nodes, frames_on_air: d.frames_on_air, drops_shown: d.drops_shown, paths: d.paths,
        selected: { node: S.selNode, flow: S.selFlow }, tx_range_m: M.tx_range_m, cs_range_m: M.cs_range_m,
      };
    },
  };
  layout();
  render();
})();
