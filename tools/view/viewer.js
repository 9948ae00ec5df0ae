/* viewer.js: the timeline and tables of `ovni-auto view` (built into the
 * page by tools/view/html.c).  Data: #oa-meta (JSON) and #oa-data (base64
 * of varint-packed intervals: per row an overview, then the finest level).
 * The overview is painted first; the finest level is decoded after it and
 * folded into coarser levels (each bucket shows the state that covers most
 * of it), so that a frame draws about one interval per pixel column. */
'use strict';
(function () {
	const t00 = performance.now();
	const errors = [];
	window.addEventListener('error', (e) => errors.push(String(e.message || e)));
	const $ = (id) => document.getElementById(id);
	const meta = JSON.parse($('oa-meta').textContent);
	const S = meta.strings;
	const KINDS = ['running', 'thread state', 'blocked', 'OpenMP', 'task', 'MPI', 'agent flush'];
	const ROW_H = 18, HEAD_H = 20, AXIS_H = 30, LABEL_W = 230;

	/* ---- Colours: one per state, by kind, stable for a name ---- */
	function hash(s) {
		let h = 2166136261;
		for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
		return h >>> 0;
	}
	function hsl(h, s, l) {
		s /= 100; l /= 100;
		const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
		const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
		return '#' + [f(0), f(8), f(4)].map((v) => v.toString(16).padStart(2, '0')).join('');
	}
	const FIXED = { 'Running': '#3aa845', 'Paused': '#c9c9c9', 'Cooling': '#9ec5f0', 'Warming': '#f5cf9a', 'agent: flush': '#202020' };
	function colour(name, kind) {
		if (FIXED[name]) return FIXED[name];
		const h = hash(name);
		switch (kind) {
		case 2: return hsl(h % 40, 70 + (h >> 8) % 25, 45 + (h >> 16) % 20);        /* waits: reds, oranges */
		case 3: return hsl(195 + h % 75, 45 + (h >> 8) % 40, 48 + (h >> 16) % 24);  /* OpenMP: blues, violets */
		case 4: { /* tasks: yellows or cyans, away from Running's green */
			const x = h % 90;
			return hsl(x < 45 ? 42 + x : 150 + x, 60 + (h >> 8) % 30, 42 + (h >> 16) % 18);
		}
		case 5: return hsl(275 + h % 65, 45 + (h >> 8) % 45, 45 + (h >> 16) % 25);  /* MPI: purples, magentas */
		default: return hsl(h % 360, 15, 70);
		}
	}
	const states = meta.states.map(([name, kind, ns, count], i) => ({ i, name: S[name], kind, ns, count, colour: colour(S[name], kind) }));

	/* ---- Rows and processes ---- */
	const procs = meta.procs.map(([pid, rank, name]) => ({ pid, rank, name: S[name], rows: [], folded: false }));
	const rows = meta.rows.map(([proc, tid, name, first, last, kinds, marks], i) =>
		({ i, proc, tid, name: S[name] || '', first, last, kinds, marks: marks.map(([t, s]) => ({ t, text: S[s] })), ov: null, levels: null }));
	for (const r of rows) procs[r.proc].rows.push(r);
	/* Processes in tree order: a child below its parent (its "forked from
	 * PID" mark, or the parent's "...: child PID"), siblings by start. */
	const key = (P, pid) => P.name.replace(/ \/ proc \d+$/, '') + '/' + pid;
	const byKey = new Map();
	procs.forEach((P, i) => { byKey.set(key(P, P.pid), i); P.parent = -1; P.kids = []; P.depth = 0; P.first = Infinity; });
	for (const r of rows) procs[r.proc].first = Math.min(procs[r.proc].first, r.first);
	procs.forEach((P, i) => {
		for (const r of P.rows) for (const m of r.marks) {
			let g = /^forked from (\d+)/.exec(m.text);
			if (g && byKey.has(key(P, g[1])) && byKey.get(key(P, g[1])) !== i) P.parent = byKey.get(key(P, g[1]));
			g = /child (\d+)$/.exec(m.text);
			const c = g ? byKey.get(key(P, g[1])) : undefined;
			if (c !== undefined && c !== i && procs[c].parent < 0) procs[c].parent = i;
		}
	});
	const order = [];
	const visit = (i, d) => { if (order.includes(i)) return; procs[i].depth = d; order.push(i); procs[i].kids.sort((a, b) => procs[a].first - procs[b].first).forEach((k) => visit(k, d + 1)); };
	procs.forEach((P, i) => { if (P.parent >= 0) procs[P.parent].kids.push(i); });
	const rankOrFirst = (a, b) => (procs[a].rank >= 0 && procs[b].rank >= 0 ? procs[a].rank - procs[b].rank : 0) || procs[a].first - procs[b].first;
	procs.map((P, i) => i).filter((i) => procs[i].parent < 0).sort(rankOrFirst).forEach((i) => visit(i, 0));
	procs.forEach((P, i) => visit(i, 0)); /* cycles (pid reuse): whatever is left */

	/* ---- Data ---- */
	const text = $('oa-data').textContent;
	const bin = atob(text);
	const bytes = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
	let pos = 0;
	function varint() {
		let v = 0, mul = 1, b;
		do { b = bytes[pos++]; v += (b & 127) * mul; mul *= 128; } while (b & 128);
		return v;
	}
	function decodeLevel(q) {
		const n = varint();
		const L = { q, n, start: new Float64Array(n), end: new Float64Array(n), state: new Uint32Array(n), detail: new Uint32Array(n) };
		let prev = 0;
		for (let i = 0; i < n; i++) {
			const s = prev + varint(), e = s + varint(), st = varint();
			L.start[i] = s; L.end[i] = e; L.state[i] = st >>> 1;
			L.detail[i] = st & 1 ? varint() : 0;
			prev = e;
		}
		return L;
	}
	for (const r of rows) r.ov = decodeLevel(meta.overviewQuantum);

	/* A coarser level: buckets of q show their dominant state. */
	function resample(L, q) {
		const st = [], en = [], sa = [], de = [];
		const put = (s, e, x, d) => {
			if (e <= s) return;
			const n = st.length;
			if (n && en[n - 1] === s && sa[n - 1] === x && de[n - 1] === d) { en[n - 1] = e; return; }
			st.push(s); en.push(e); sa.push(x); de.push(d);
		};
		let b = -1, lo = 0, hi = 0, acc = new Map();
		const flush = () => {
			if (b < 0) return;
			let best = -1, bt = -1;
			for (const [x, t] of acc) if (t > bt) { bt = t; best = x; }
			put(lo, hi, best, 0);
			b = -1; acc = new Map();
		};
		for (let i = 0; i < L.n; i++) {
			let s = L.start[i];
			const e = L.end[i], x = L.state[i];
			while (s < e) {
				const k = Math.floor(s / q), bend = (k + 1) * q;
				if (s === k * q && e >= bend) {
					flush();
					const full = Math.floor(e / q) * q;
					put(s, full, x, L.detail[i]);
					s = full;
					continue;
				}
				const seg = Math.min(e, bend);
				if (b !== k) { flush(); b = k; lo = s; }
				hi = seg;
				acc.set(x, (acc.get(x) || 0) + seg - s);
				s = seg;
			}
		}
		flush();
		return { q, n: st.length, start: Float64Array.from(st), end: Float64Array.from(en), state: Uint32Array.from(sa), detail: Uint32Array.from(de) };
	}
	let ready = false;
	function decodeFine() {
		pos = meta.overviewBytes;
		for (const r of rows) {
			const L = decodeLevel(meta.quantum);
			const levels = [L];
			let q = Math.max(meta.quantum, 16) * 8;
			let cur = L;
			while (cur.n > 256 && q < meta.duration) {
				cur = resample(cur, q);
				levels.push(cur);
				q *= 8;
			}
			r.levels = levels;
		}
		ready = true;
	}

	/* ---- Time ---- */
	let t0 = 0, t1 = Math.max(meta.duration, 1);
	const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];
	function fmt(ns, span) {
		const ref = Math.abs(span === undefined ? ns : span);
		for (const [d, u] of units) if (ref >= d || d === 1) {
			const v = ns / d;
			return (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + u;
		}
	}

	/* ---- Layout ---- */
	const canvas = $('oa-canvas'), scroller = $('oa-scroll'), spacer = $('oa-spacer');
	const ctx = canvas.getContext('2d');
	let W = 800, H = 400, items = [], highlightState = -1, highlightRow = -1, draws = 0;
	function layout() {
		items = [];
		let y = AXIS_H;
		for (const p of order) {
			const P = procs[p];
			items.push({ head: P, y, h: HEAD_H });
			y += HEAD_H;
			if (!P.folded) for (const r of P.rows) { items.push({ row: r, y, h: ROW_H }); y += ROW_H; }
		}
		spacer.style.height = y + 'px';
		scroller.style.height = Math.min(y + 2, Math.max(200, window.innerHeight * 0.62)) + 'px';
		W = scroller.clientWidth;
		H = scroller.clientHeight;
		const dpr = window.devicePixelRatio || 1;
		canvas.width = W * dpr; canvas.height = H * dpr;
		canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	}
	const plotW = () => Math.max(1, W - LABEL_W);
	const xOf = (t) => LABEL_W + (t - t0) / (t1 - t0) * plotW();
	const tOf = (x) => t0 + (x - LABEL_W) / plotW() * (t1 - t0);

	function levelFor(r, nsPerPx) {
		if (!r.levels) return r.ov;
		let best = r.levels[0];
		for (const L of r.levels) if (L.q <= nsPerPx) best = L;
		return best;
	}
	function firstAfter(L, t) { /* first interval ending after t */
		let lo = 0, hi = L.n;
		while (lo < hi) { const m = (lo + hi) >> 1; if (L.end[m] <= t) lo = m + 1; else hi = m; }
		return lo;
	}
	function drawRow(r, y) {
		const L = levelFor(r, (t1 - t0) / plotW());
		const dim = highlightState >= 0;
		let px = -1, acc = null;
		const flushPx = () => {
			if (px < 0) return;
			let best = -1, bt = -1;
			for (const [x, t] of acc) if (t > bt) { bt = t; best = x; }
			ctx.globalAlpha = dim && best !== highlightState ? 0.2 : 1;
			ctx.fillStyle = states[best].colour;
			ctx.fillRect(px, y + 2, 1, ROW_H - 4);
			px = -1;
		};
		for (let i = firstAfter(L, t0); i < L.n && L.start[i] < t1; i++) {
			const x0 = Math.max(xOf(L.start[i]), LABEL_W), x1 = Math.min(xOf(L.end[i]), W), x = L.state[i];
			if (x1 - x0 >= 1) {
				flushPx();
				ctx.globalAlpha = dim && x !== highlightState ? 0.2 : 1;
				ctx.fillStyle = states[x].colour;
				ctx.fillRect(Math.round(x0), y + 2, Math.max(1, Math.round(x1) - Math.round(x0)), ROW_H - 4);
			} else {
				const p = Math.floor(x0);
				if (p !== px) { flushPx(); px = p; acc = new Map(); }
				acc.set(x, (acc.get(x) || 0) + (L.end[i] - L.start[i]));
			}
		}
		flushPx();
		ctx.globalAlpha = 1;
		for (const m of r.marks) {
			if (m.t < t0 || m.t > t1) continue;
			const x = xOf(m.t), s = m.text;
			ctx.fillStyle = /^(signal|killed)/.test(s) ? '#d01010' : /^exit/.test(s) ? '#000' : /^exec/.test(s) ? '#7b1fa2' : /^(fork|spawn|clone|vfork)/.test(s) ? '#1565c0' : '#555';
			ctx.beginPath(); ctx.moveTo(x - 4, y); ctx.lineTo(x + 4, y); ctx.lineTo(x, y + 7); ctx.fill();
		}
	}
	function niceStep(span, px) {
		const raw = span / Math.max(1, px / 110);
		const p = Math.pow(10, Math.floor(Math.log10(raw)));
		for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
		return 10 * p;
	}
	let drawMs = 0;
	function draw() {
		const d0 = performance.now();
		paint();
		drawMs = performance.now() - d0;
	}
	function paint() {
		draws++;
		const top = scroller.scrollTop;
		ctx.clearRect(0, 0, W, H);
		ctx.font = '12px system-ui, sans-serif';
		ctx.textBaseline = 'middle';
		for (const it of items) {
			const y = it.y - top;
			if (y + it.h < AXIS_H || y > H) continue;
			if (it.head) {
				const P = it.head;
				ctx.fillStyle = '#e8edf2'; ctx.fillRect(0, y, W, it.h);
				ctx.fillStyle = '#123';
				ctx.fillText(' '.repeat(Math.min(P.depth, 12) * 2) + (P.folded ? '▸ ' : '▾ ') + P.name + (P.rank >= 0 ? ' · rank ' + P.rank : '') + ' · ' + P.rows.length + (P.rows.length === 1 ? ' thread' : ' threads'), 4, y + it.h / 2);
			} else {
				const r = it.row;
				if (r.i === highlightRow) { ctx.fillStyle = '#ffe9a8'; ctx.fillRect(0, y, W, it.h); }
				ctx.fillStyle = '#333';
				ctx.save(); ctx.beginPath(); ctx.rect(0, y, LABEL_W - 4, it.h); ctx.clip();
				ctx.fillText('  ' + r.tid + (r.name ? ' ' + r.name : ''), 4, y + it.h / 2);
				ctx.restore();
				drawRow(r, y);
				ctx.fillStyle = '#eee'; ctx.fillRect(LABEL_W, y + it.h - 1, plotW(), 1);
			}
		}
		/* the time axis */
		ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, AXIS_H);
		ctx.fillStyle = '#f4f4f4'; ctx.fillRect(LABEL_W, 0, plotW(), AXIS_H);
		const span = t1 - t0, step = niceStep(span, plotW());
		ctx.fillStyle = '#333'; ctx.strokeStyle = '#888'; ctx.textBaseline = 'top';
		for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
			const x = xOf(t);
			ctx.fillRect(Math.round(x), AXIS_H - 8, 1, 8);
			ctx.fillText(fmt(t, step), Math.round(x) + 2, 6);
		}
		ctx.fillStyle = '#555';
		ctx.fillText(ready ? '' : 'loading detail…', 6, 6);
		ctx.fillStyle = '#ccc'; ctx.fillRect(LABEL_W - 1, 0, 1, H);
		$('oa-range').textContent = fmt(t0, span) + ' – ' + fmt(t1, span) + '  (' + fmt(span) + ' shown of ' + fmt(meta.duration) + ')';
	}
	let pending = false;
	function redraw() {
		if (pending) return;
		pending = true;
		requestAnimationFrame(() => { pending = false; draw(); });
	}
	function setRange(a, b) {
		const min = 20, D = Math.max(meta.duration, 1);
		if (b - a < min) { const c = (a + b) / 2; a = c - min / 2; b = c + min / 2; }
		if (b - a > D * 1.05) { a = 0; b = D; }
		t0 = a; t1 = b;
		redraw();
	}
	function zoom(f, x) {
		const t = tOf(x === undefined ? LABEL_W + plotW() / 2 : x);
		setRange(t - (t - t0) * f, t + (t1 - t) * f);
	}

	/* ---- Pointer ---- */
	function itemAt(y) {
		const yy = y + scroller.scrollTop;
		for (const it of items) if (yy >= it.y && yy < it.y + it.h) return it;
		return null;
	}
	function finest(r) { return r.levels ? r.levels[0] : r.ov; }
	function intervalAt(r, t) {
		const L = finest(r), i = firstAfter(L, t);
		return i < L.n && L.start[i] <= t ? { L, i } : null;
	}
	function describe(r, t, x) {
		for (const m of r.marks) if (Math.abs(xOf(m.t) - x) <= 4) return m.text + '\nat ' + fmt(m.t) + '\n' + rowLabel(r);
		const hit = intervalAt(r, t);
		if (!hit) return null;
		const { L, i } = hit, d = L.end[i] - L.start[i];
		return states[L.state[i]].name + (L.detail[i] ? '\nat ' + S[L.detail[i]] : '') +
			'\nstart ' + fmt(L.start[i]) + ', duration ' + fmt(d) + (L.q > 1 ? ' (shown per ' + fmt(L.q) + ')' : '') + '\n' + rowLabel(r);
	}
	const rowLabel = (r) => procs[r.proc].name + ', thread ' + r.tid + (r.name ? ' (' + r.name + ')' : '');
	const tip = $('oa-tip');
	let drag = null;
	canvas.addEventListener('mousemove', (e) => {
		const b = canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
		if (drag) {
			if (drag.select) { drag.x1 = x; draw(); ctx.fillStyle = '#3060ff33'; ctx.fillRect(Math.min(drag.x0, x), 0, Math.abs(x - drag.x0), H); return; }
			const dt = (x - drag.x0) / plotW() * (drag.b - drag.a);
			setRange(drag.a - dt, drag.b - dt);
			drag.moved = true;
			return;
		}
		const it = y >= AXIS_H && x >= LABEL_W ? itemAt(y) : null;
		const s = it && it.row ? describe(it.row, tOf(x), x) : null;
		if (!s) { tip.hidden = true; return; }
		tip.textContent = s; tip.hidden = false;
		tip.style.left = (e.clientX + 14) + 'px'; tip.style.top = (e.clientY + 12) + 'px';
	});
	canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
	canvas.addEventListener('mousedown', (e) => {
		const b = canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
		if (x < LABEL_W) {
			const it = itemAt(y);
			if (it && it.head) { it.head.folded = !it.head.folded; layout(); draw(); }
			return;
		}
		drag = { x0: x, a: t0, b: t1, select: e.shiftKey || y < AXIS_H, moved: false };
		e.preventDefault();
	});
	window.addEventListener('mouseup', (e) => {
		if (!drag) return;
		const d = drag; drag = null;
		const b = canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
		if (d.select && Math.abs(x - d.x0) > 3) { setRange(tOf(Math.min(d.x0, x)), tOf(Math.max(d.x0, x))); return; }
		if (d.select) { draw(); return; }
		if (!d.moved) {
			const it = itemAt(y);
			if (it && it.row) $('oa-info').textContent = describe(it.row, tOf(x), x) || '';
		}
	});
	canvas.addEventListener('wheel', (e) => {
		if (e.shiftKey) { scroller.scrollTop += e.deltaY || e.deltaX; return; }
		e.preventDefault();
		const b = canvas.getBoundingClientRect();
		zoom(e.deltaY > 0 ? 1.25 : 0.8, e.clientX - b.left);
	}, { passive: false });
	scroller.addEventListener('scroll', redraw);
	window.addEventListener('resize', () => { layout(); draw(); });
	$('oa-in').onclick = () => zoom(0.5);
	$('oa-out').onclick = () => zoom(2);
	$('oa-fit').onclick = () => setRange(0, meta.duration);

	/* ---- Legend and tables ---- */
	function highlight(i) {
		highlightState = highlightState === i ? -1 : i;
		for (const el of document.querySelectorAll('[data-state]')) el.classList.toggle('oa-on', +el.dataset.state === highlightState);
		redraw();
	}
	/* Built after the first paint: a trace of thousands of threads makes
	 * tables of thousands of rows, which the timeline need not wait for. */
	function buildTables() {
		const byTime = states.slice().sort((a, b) => b.ns - a.ns);
		const legend = $('oa-legend');
		for (const s of byTime) {
			const el = document.createElement('span');
			el.className = 'oa-lg'; el.dataset.state = s.i;
			el.innerHTML = '<span class="oa-sw"></span>';
			el.firstChild.style.background = s.colour;
			el.appendChild(document.createTextNode(s.name));
			el.onclick = () => highlight(s.i);
			legend.appendChild(el);
		}
	}
	/* A sortable table; at most MAX_ROWS rows are shown (the first of the
	 * order asked for), the rest are counted. */
	const MAX_ROWS = 500;
	function table(el, head, data, onclick) {
		const thead = document.createElement('thead'), tr = document.createElement('tr');
		head.forEach(([name, left], c) => {
			const th = document.createElement('th');
			th.textContent = name; if (left) th.className = 'oa-l';
			th.onclick = () => { const dir = th.dataset.dir === 'd' ? 'a' : 'd'; th.dataset.dir = dir; fill(c, dir); };
			tr.appendChild(th);
		});
		thead.appendChild(tr); el.appendChild(thead);
		const tbody = document.createElement('tbody'); el.appendChild(tbody);
		function fill(c, dir) {
			if (c >= 0) data.sort((a, b) => { const x = a.v[c], y = b.v[c]; const r = typeof x === 'number' ? x - y : String(x).localeCompare(String(y)); return dir === 'd' ? -r : r; });
			tbody.textContent = '';
			for (const d of data.slice(0, MAX_ROWS)) {
				const row = document.createElement('tr');
				if (d.state !== undefined) row.dataset.state = d.state;
				d.v.forEach((v, k) => {
					const td = document.createElement('td');
					if (head[k][1]) td.className = 'oa-l';
					if (d.swatch && k === 0) { const sw = document.createElement('span'); sw.className = 'oa-sw'; sw.style.background = d.swatch; td.appendChild(sw); }
					td.appendChild(document.createTextNode(typeof v === 'number' && head[k][2] ? head[k][2](v) : v));
					row.appendChild(td);
				});
				row.onclick = () => onclick(d);
				tbody.appendChild(row);
			}
			if (data.length > MAX_ROWS) {
				const row = document.createElement('tr'), td = document.createElement('td');
				td.colSpan = head.length; td.className = 'oa-l';
				td.textContent = (data.length - MAX_ROWS) + ' more (' + data.length + ' in all): sort by a column to see others first';
				row.appendChild(td); tbody.appendChild(row);
			}
		}
		fill(-1);
	}
	function buildAllTables() {
		buildTables();
		const T = (v) => (v ? fmt(v) : '–'), P = (v) => (v * 100).toFixed(1) + '%';
		table($('oa-threads'), [['process', 1], ['thread', 0], ['name', 1], ['lifetime', 0, T], ['running', 0, T], ['blocked', 0, T], ['OpenMP', 0, T], ['tasks', 0, T], ['MPI', 0, T], ['paused etc.', 0, T], ['agent', 0, T]],
			rows.map((r) => ({ r, v: [procs[r.proc].name, r.tid, r.name, r.last - r.first, r.kinds[0], r.kinds[2], r.kinds[3], r.kinds[4], r.kinds[5], r.kinds[1], r.kinds[6]] })),
			(d) => findRow(d.r));
		const total = states.reduce((a, s) => a + s.ns, 0) || 1;
		table($('oa-states'), [['state', 1], ['kind', 1], ['time', 0, T], ['share', 0, P], ['intervals', 0]],
			states.map((s) => ({ state: s.i, swatch: s.colour, v: [s.name, KINDS[s.kind], s.ns, s.ns / total, s.count] })),
			(d) => highlight(d.state));
		table($('oa-procs'), [['process', 1], ['pid', 0], ['rank', 0], ['threads', 0], ['running', 0, T], ['blocked', 0, T], ['MPI', 0, T]],
			order.map((p) => { const P = procs[p], k = (n) => P.rows.reduce((a, r) => a + r.kinds[n], 0); return { p: P, v: [P.name, P.pid, P.rank >= 0 ? P.rank : '', P.rows.length, k(0), k(2), k(5)] }; }),
			(d) => { if (d.p.rows.length) findRow(d.p.rows[0]); });
		if (meta.mpi.length) {
			table($('oa-mpi'), [['rank', 0], ['process', 1], ['function', 1], ['calls', 0], ['time', 0, T], ['mean', 0, T]],
				meta.mpi.map(([p, s, ns, calls]) => ({ state: s, swatch: null, v: [procs[p].rank >= 0 ? procs[p].rank : '', procs[p].name, states[s].name, calls, ns, calls ? ns / calls : 0] })),
				(d) => highlight(d.state));
		} else {
			$('oa-mpi-h').hidden = true;
		}
	}
	function findRow(r) {
		const P = procs[r.proc];
		if (P.folded) { P.folded = false; layout(); }
		const it = items.find((i) => i.row === r);
		highlightRow = r.i;
		if (it) scroller.scrollTop = Math.max(0, it.y - AXIS_H - 2 * ROW_H);
		scroller.scrollIntoView({ block: 'nearest' });
		redraw();
	}

	/* ---- Start ---- */
	$('oa-title').textContent = meta.title;
	document.title = meta.title + ' - ovni-auto view';
	$('oa-facts').textContent = fmt(meta.duration) + ' · ' + procs.length + (procs.length === 1 ? ' process' : ' processes') + ' · ' + rows.length + (rows.length === 1 ? ' thread' : ' threads') +
		(meta.quantum > 1 ? ' · detail kept down to ' + fmt(meta.quantum) : '') + (meta.damaged ? ' · some streams were damaged (see ovni-auto check)' : '');
	layout();
	draw();
	const firstPaint = performance.now();
	/* Test hooks: the browser tests read these. */
	const api = window.OA = {
		errors, get ready() { return ready; }, get draws() { return draws; }, get drawMs() { return drawMs; },
		firstPaintMs: firstPaint, startMs: t00, readyMs: 0,
		rows: rows.map((r) => ({ proc: procs[r.proc].name, pid: procs[r.proc].pid, tid: r.tid, name: r.name })),
		range: () => [t0, t1],
		setRange: (a, b) => { setRange(a, b); draw(); },
		stateAt: (i, t) => { const h = intervalAt(rows[i], t); return h ? states[h.L.state[h.i]].name : null; },
		intervals: (i, name) => { const L = finest(rows[i]), out = []; for (let k = 0; k < L.n; k++) if (states[L.state[k]].name === name) out.push([L.start[k], L.end[k]]); return out; },
		pixelOf: (i, t) => { const it = items.find((x) => x.row === rows[i]), b = canvas.getBoundingClientRect(); return it ? { x: b.left + window.scrollX + xOf(t), y: b.top + window.scrollY + it.y - scroller.scrollTop + ROW_H / 2 } : null; },
		colourOf: (name) => { const s = states.find((x) => x.name === name); return s ? s.colour : null; },
	};
	setTimeout(() => {
		buildAllTables();
		decodeFine();
		api.readyMs = performance.now();
		draw();
		if (location.hash.startsWith('#selftest')) selftest();
	}, 0);

	/* Facts for the browser tests (tests/run/t980_view.sh), in #oa-selftest. */
	function selftest() {
		const out = { errors, firstPaintMs: api.firstPaintMs, readyMs: api.readyMs, rows: api.rows, states: states.map((s) => s.name), colours: {}, blocked: [], probe: null, zoom: null };
		for (const s of states) out.colours[s.name] = s.colour;
		/* The waits (the first 50 of each row) and the longest one. */
		let best = null;
		rows.forEach((r, i) => {
			const L = finest(r);
			for (let k = 0, n = 0; k < L.n; k++) {
				if (states[L.state[k]].kind !== 2) continue;
				const b = [i, states[L.state[k]].name, L.start[k], L.end[k]];
				if (n++ < 50) out.blocked.push(b);
				if (!best || b[3] - b[2] > best[3] - best[2]) best = b;
			}
		});
		if (best) {
			const mid = (best[2] + best[3]) / 2;
			out.probe = { row: best[0], state: best[1], t: mid, at: api.stateAt(best[0], mid), colour: api.colourOf(best[1]), px: api.pixelOf(best[0], mid) };
		}
		/* Probes asked for in the address: #selftest&probe=ROW:NS,ROW:NS */
		const m = /probe=([0-9:.,]+)/.exec(location.hash);
		out.probes = m ? m[1].split(',').map((p) => { const [r, t] = p.split(':').map(Number); return { row: r, t, state: rows[r] ? api.stateAt(r, t) : null }; }) : [];
		out.marks = rows.map((r) => r.marks.map((k) => k.text));
		out.mpi = meta.mpi.map(([p, s, ns, calls]) => [procs[p].rank, states[s].name, calls]);
		const before = api.range(), d0 = draws;
		api.setRange(before[0], before[1]);
		const fullMs = drawMs;
		api.setRange(before[0] + (before[1] - before[0]) / 4, before[1] - (before[1] - before[0]) / 4);
		out.zoom = { before, after: api.range(), drew: draws > d0, fullMs, halfMs: drawMs };
		api.setRange(before[0] + (before[1] - before[0]) * 0.5, before[0] + (before[1] - before[0]) * 0.5001);
		out.zoom.deepMs = drawMs;
		api.setRange(before[0], before[1]);
		const el = $('oa-selftest');
		el.textContent = JSON.stringify(out);
	}
})();
