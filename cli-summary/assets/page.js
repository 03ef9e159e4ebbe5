/* The script of tilescope's HTML pages (cli-summary/src/html.h), allowed
   by its SHA-256 in the page's Content-Security-Policy. The page reads
   the same without it; this only adds a tooltip for chart marks, sorting
   of tables by a click on a header, and zoom of the charts marked
   data-zoom. No eval, no inline handler, nothing fetched. */
(function () {
	"use strict";

	/* Hover: a mark's <title> (the native tooltip without script) moves
	   to data-tip the first time the pointer reaches it, and shows in
	   one floating box. */
	var tip = document.createElement("div");
	tip.className = "tip";
	tip.hidden = true;
	tip.setAttribute("role", "tooltip");
	document.body.appendChild(tip);

	function tipText(el) {
		if (el.hasAttribute("data-tip"))
			return el.getAttribute("data-tip");
		for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
			if (c.localName === "title") {
				var t = c.textContent;
				el.setAttribute("data-tip", t);
				el.removeChild(c);
				return t;
			}
		}
		return null;
	}

	function markOf(target, svg) {
		for (var el = target; el && el !== svg; el = el.parentNode) {
			if (el.hasAttribute && (el.hasAttribute("data-tip") ||
					(el.firstElementChild && el.firstElementChild.localName === "title")))
				return el;
		}
		return null;
	}

	function placeTip(ev) {
		var x = ev.clientX + 14, y = ev.clientY + 14;
		var w = tip.offsetWidth, h = tip.offsetHeight;
		if (x + w > window.innerWidth - 4)
			x = Math.max(4, ev.clientX - w - 14);
		if (y + h > window.innerHeight - 4)
			y = Math.max(4, ev.clientY - h - 14);
		tip.style.left = x + "px";
		tip.style.top = y + "px";
	}

	function hideTip() {
		tip.hidden = true;
	}

	/* Sorting: a header is a button; a click sorts by its column,
	   ascending, then descending. Numeric cells sort by data-sort. */
	function cellKey(td, numeric) {
		if (!td)
			return numeric ? -Infinity : "";
		if (numeric) {
			var v = parseFloat(td.getAttribute("data-sort"));
			return isNaN(v) ? -Infinity : v;
		}
		return td.textContent;
	}

	function sortTable(th) {
		var table = th.closest("table"), body = table.tBodies[0];
		if (!body)
			return;
		var row = th.parentNode, col = Array.prototype.indexOf.call(row.cells, th);
		var numeric = th.classList.contains("num");
		var asc = th.getAttribute("aria-sort") !== "ascending";
		var rows = Array.prototype.slice.call(body.rows).map(function (r, i) {
			return { r: r, k: cellKey(r.cells[col], numeric), i: i };
		});
		rows.sort(function (a, b) {
			var d;
			if (numeric)
				d = a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
			else
				d = a.k.localeCompare(b.k, undefined, { numeric: true });
			return (asc ? d : -d) || a.i - b.i;
		});
		Array.prototype.forEach.call(row.cells, function (c) {
			c.removeAttribute("aria-sort");
		});
		th.setAttribute("aria-sort", asc ? "ascending" : "descending");
		var frag = document.createDocumentFragment();
		rows.forEach(function (x) { frag.appendChild(x.r); });
		body.appendChild(frag);
	}

	document.addEventListener("click", function (ev) {
		var b = ev.target.closest && ev.target.closest("th > button");
		if (b && b.closest("table.data"))
			sortTable(b.parentNode);
	});

	/* Zoom: the marks of a zoomable chart are in a nested <svg
	   class="plot"> whose viewBox is the visible x range (its
	   preserveAspectRatio is none); labels outside it that belong to an
	   x (data-x, in the plot's units) move with the range and hide
	   outside it. Wheel or +/- zooms around the pointer or the middle,
	   a drag pans, Reset shows everything. */
	function setupZoom(svg) {
		var plot = svg.querySelector("svg.plot");
		if (!plot)
			return;
		var vb = plot.viewBox.baseVal;
		var full = vb.width, px = parseFloat(plot.getAttribute("x")), pw = parseFloat(plot.getAttribute("width"));
		var x0 = vb.x, w = vb.width, height = vb.height;
		var tracked = Array.prototype.slice.call(svg.querySelectorAll("[data-x]"));

		/* The fine ticks show once zoomed enough to keep labels apart. */
		var fine = tracked.filter(function (el) { return el.classList.contains("fine"); })
			.map(function (el) { return parseFloat(el.getAttribute("data-x")); })
			.sort(function (a, b) { return a - b; });
		var fineGap = fine.reduce(function (g, x, i) {
			return i && x - fine[i - 1] > 1e-6 ? Math.min(g, x - fine[i - 1]) : g;
		}, Infinity);

		function apply() {
			var fineOn = fineGap * pw / w >= 56;
			plot.setAttribute("viewBox", x0.toFixed(2) + " 0 " + w.toFixed(2) + " " + height);
			tracked.forEach(function (el) {
				var x = parseFloat(el.getAttribute("data-x"));
				var sx = px + (x - x0) * pw / w;
				var inside = x >= x0 - 1e-9 && x <= x0 + w + 1e-9 &&
					(fineOn || !el.classList.contains("fine"));
				el.setAttribute("visibility", inside ? "visible" : "hidden");
				if (el.localName === "text")
					el.setAttribute("x", sx.toFixed(1));
				else if (el.localName === "circle")
					el.setAttribute("cx", sx.toFixed(1));
				else if (el.localName === "line") {
					el.setAttribute("x1", sx.toFixed(1));
					el.setAttribute("x2", sx.toFixed(1));
				}
			});
		}

		function zoom(factor, at) {
			var nw = Math.min(full, Math.max(full / 1000, w / factor));
			x0 = at - (at - x0) * nw / w;
			w = nw;
			x0 = Math.min(Math.max(x0, 0), full - w);
			apply();
		}

		function plotX(ev) {
			var r = svg.getBoundingClientRect(), vbw = svg.viewBox.baseVal.width;
			var ux = (ev.clientX - r.left) * vbw / r.width;
			return x0 + (ux - px) * w / pw;
		}

		var bar = document.createElement("div");
		bar.className = "zoom-bar";
		[["+", "Zoom in", function () { zoom(2, x0 + w / 2); }],
		 ["\u2212", "Zoom out", function () { zoom(0.5, x0 + w / 2); }],
		 ["Reset", "Show everything", function () { x0 = 0; w = full; apply(); }]].forEach(function (d) {
			var b = document.createElement("button");
			b.type = "button";
			b.textContent = d[0];
			b.title = d[1];
			b.setAttribute("aria-label", d[1]);
			b.addEventListener("click", d[2]);
			bar.appendChild(b);
		});
		svg.parentNode.insertBefore(bar, svg);

		svg.addEventListener("wheel", function (ev) {
			if (!ev.ctrlKey && !ev.shiftKey && Math.abs(ev.deltaY) < Math.abs(ev.deltaX))
				return;
			ev.preventDefault();
			zoom(ev.deltaY < 0 ? 1.25 : 0.8, Math.min(Math.max(plotX(ev), 0), full));
		}, { passive: false });

		var drag = null;
		svg.addEventListener("pointerdown", function (ev) {
			if (ev.button !== 0)
				return;
			drag = { cx: ev.clientX, x0: x0 };
			svg.setPointerCapture(ev.pointerId);
		});
		svg.addEventListener("pointermove", function (ev) {
			if (!drag)
				return;
			var r = svg.getBoundingClientRect(), vbw = svg.viewBox.baseVal.width;
			var d = (ev.clientX - drag.cx) * vbw / r.width * w / pw;
			x0 = Math.min(Math.max(drag.x0 - d, 0), full - w);
			apply();
		});
		function endDrag() { drag = null; }
		svg.addEventListener("pointerup", endDrag);
		svg.addEventListener("pointercancel", endDrag);
	}

	/* A row of links to the page's sections under its header. */
	var sections = document.querySelectorAll("main > section[id] > h2");
	if (sections.length > 1) {
		var nav = document.createElement("nav");
		nav.className = "toc";
		nav.setAttribute("aria-label", "Sections");
		Array.prototype.forEach.call(sections, function (h2) {
			var a = document.createElement("a");
			a.href = "#" + h2.parentNode.id;
			a.textContent = h2.textContent;
			nav.appendChild(a);
		});
		document.querySelector(".page-header").appendChild(nav);
	}

	Array.prototype.forEach.call(document.querySelectorAll("svg.chart-svg"), function (svg) {
		svg.addEventListener("pointermove", function (ev) {
			var m = markOf(ev.target, svg), t = m && tipText(m);
			if (!t) {
				hideTip();
				return;
			}
			tip.textContent = t;
			tip.hidden = false;
			placeTip(ev);
		});
		svg.addEventListener("pointerleave", hideTip);
		if (svg.hasAttribute("data-zoom"))
			setupZoom(svg);
	});
})();
