/* The editing screen: a whole story written, cited and checked on one page.
   Vanilla JS, no build step; every text is put in the page with textContent (never HTML). */
(function () {
  "use strict";

  var state, form, csrf;
  var dirty = false, checksTimer = null, autosaveTimer = null, checksSeq = 0, searchSeq = 0;
  var searchUnit = null, searchTimer = null, lastFocus = null;

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "hidden") { node.hidden = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function button(text, cls, label) {
    var b = el("button", { type: "button", "class": cls }, text);
    if (label) b.setAttribute("aria-label", label);
    return b;
  }

  /* ------------------------------------------------------------- building the screen */

  function citesList(unit) {
    var list = unit.querySelector(".editor-cites");
    list.textContent = "";
    unit._cites.forEach(function (cite) {
      cite.claim_ids.forEach(function (cid) {
        var info = state.claims[cid] || { text: "", title: "manifest " + cite.manifest_id };
        var li = el("li", { "class": "editor-cite" });
        li.appendChild(el("span", { "class": "editor-cite-text" }, info.text || "(claim " + cid + ", no text yet)"));
        var meta = (info.title || "") + (info.publisher ? " · " + info.publisher : "") +
          (info.published_date ? " · " + info.published_date : "") + (info.self_reported ? " · self-reported" : "");
        li.appendChild(el("span", { "class": "editor-cite-meta" }, meta + " · claim " + cid));
        var rm = button("Remove", "editor-cite-remove", "Remove the cite of claim " + cid);
        rm.addEventListener("click", function () {
          cite.claim_ids = cite.claim_ids.filter(function (c) { return c !== cid; });
          unit._cites = unit._cites.filter(function (c) { return c.claim_ids.length; });
          citesList(unit); changed();
        });
        li.appendChild(rm);
        list.appendChild(li);
      });
    });
    if (!list.children.length) list.appendChild(el("li", { "class": "editor-muted" }, "No cite yet."));
  }

  function unitNode(kind, text, cites) {
    var li = el("li", { "class": "editor-unit", "data-kind": kind });
    li._cites = JSON.parse(JSON.stringify(cites || []));
    var label = el("label", { "class": "editor-unit-label" });
    var area = el("textarea", { rows: kind === "fact" ? "2" : "4", "class": "editor-text" });
    area.value = text || "";
    li.appendChild(label);
    li.appendChild(area);
    li.appendChild(el("ul", { "class": "editor-cites", "aria-label": "Cites" }));
    var tools = el("div", { "class": "editor-tools" });
    tools.appendChild(button("Add cite", "editor-add-cite"));
    tools.appendChild(button("Move up", "editor-up"));
    tools.appendChild(button("Move down", "editor-down"));
    tools.appendChild(button("Remove", "editor-remove"));
    li.appendChild(tools);
    li.appendChild(el("div", { "class": "editor-findings", "aria-live": "polite" }));
    citesList(li);
    return li;
  }

  function sectionNode(section) {
    var li = el("li", { "class": "editor-section" });
    var label = el("label", { "class": "editor-section-label" });
    var input = el("input", { type: "text", maxlength: "500", "class": "editor-heading vTextField" });
    input.value = section.heading || "";
    li.appendChild(label);
    li.appendChild(input);
    var tools = el("div", { "class": "editor-tools" });
    tools.appendChild(button("Move section up", "editor-up"));
    tools.appendChild(button("Move section down", "editor-down"));
    tools.appendChild(button("Remove section", "editor-remove"));
    li.appendChild(tools);
    var paras = el("ol", { "class": "editor-paragraphs editor-list" });
    (section.paragraphs || []).forEach(function (p) { paras.appendChild(unitNode("para", p.markdown, p.cites)); });
    li.appendChild(paras);
    li.appendChild(button("Add a paragraph", "editor-add-paragraph"));
    return li;
  }

  function render(story) {
    $("editor-headline").value = story.headline || "";
    $("editor-dek").value = story.dek || "";
    ["slug", "newsroom", "edition"].forEach(function (k) { if ($("editor-" + k) && story[k]) $("editor-" + k).value = story[k]; });
    var facts = $("editor-key-facts"), sections = $("editor-sections");
    facts.textContent = ""; sections.textContent = "";
    (story.key_facts || []).forEach(function (f) { facts.appendChild(unitNode("fact", f.text, f.cites)); });
    (story.sections || []).forEach(function (s) { sections.appendChild(sectionNode(s)); });
    relabel();
  }

  /* Labels, ids and names follow the order on the screen: "Section 2, paragraph 1". */
  function relabel() {
    Array.prototype.forEach.call($("editor-key-facts").children, function (li, i) {
      setUnit(li, "key_facts[" + i + "]", "unit-k" + i, "Key fact " + (i + 1));
    });
    Array.prototype.forEach.call($("editor-sections").children, function (sec, i) {
      var n = i + 1, input = sec.querySelector(".editor-heading");
      input.id = "editor-s" + i + "-heading";
      sec.id = "section-" + i;
      sec.querySelector(".editor-section-label").setAttribute("for", input.id);
      sec.querySelector(".editor-section-label").textContent = "Section " + n + " heading";
      sec.querySelector(".editor-add-paragraph").setAttribute("aria-label", "Add a paragraph to section " + n);
      labelTools(sec.querySelector(".editor-tools"), "section " + n);
      Array.prototype.forEach.call(sec.querySelector(".editor-paragraphs").children, function (li, j) {
        setUnit(li, "sections[" + i + "].paragraphs[" + j + "]", "unit-s" + i + "-p" + j,
          "Section " + n + ", paragraph " + (j + 1));
      });
    });
  }

  function labelTools(tools, name) {
    Array.prototype.forEach.call(tools.children, function (b) {
      b.setAttribute("aria-label", b.textContent + " (" + name + ")");
    });
  }

  function setUnit(li, path, id, name) {
    li.id = id;
    li._path = path;
    var area = li.querySelector(".editor-text");
    area.id = id + "-text";
    li.querySelector(".editor-unit-label").setAttribute("for", area.id);
    li.querySelector(".editor-unit-label").textContent = name;
    li.querySelector(".editor-cites").setAttribute("aria-label", "Cites of " + name.toLowerCase());
    labelTools(li.querySelector(".editor-tools"), name.toLowerCase());
    li._name = name;
  }

  function collect() {
    var story = {
      headline: $("editor-headline").value,
      dek: $("editor-dek").value,
      key_facts: [], sections: []
    };
    ["slug", "newsroom", "edition"].forEach(function (k) { if ($("editor-" + k)) story[k] = $("editor-" + k).value.trim(); });
    Array.prototype.forEach.call($("editor-key-facts").children, function (li) {
      story.key_facts.push({ text: li.querySelector(".editor-text").value, cites: li._cites });
    });
    Array.prototype.forEach.call($("editor-sections").children, function (sec) {
      var paras = [];
      Array.prototype.forEach.call(sec.querySelector(".editor-paragraphs").children, function (li) {
        paras.push({ markdown: li.querySelector(".editor-text").value, cites: li._cites });
      });
      story.sections.push({ heading: sec.querySelector(".editor-heading").value, paragraphs: paras });
    });
    return story;
  }

  /* ------------------------------------------------------------- talking to the server */

  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) { return { status: r.status, data: data }; });
    });
  }

  function showError(message) {
    var box = $("editor-error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  function changed() {
    dirty = true;
    $("editor-save-status").textContent = "Unsaved changes.";
    clearTimeout(checksTimer);
    checksTimer = setTimeout(runChecks, 700);
    clearTimeout(autosaveTimer);
    autosaveTimer = setTimeout(autosave, 3000);
  }

  function autosave() {
    if (!dirty) return;
    post(state.urls.autosave, { id: state.id, base_version: state.version, story: collect() }).then(function (res) {
      if (res.status === 200 && dirty) $("editor-save-status").textContent = "Unsaved changes (a working copy is kept).";
    });
  }

  function runChecks() {
    var seq = ++checksSeq;
    var units = {};
    document.querySelectorAll(".editor-unit").forEach(function (li) { units[li._path] = li; });
    $("editor-checks-summary").textContent = "Checking…";
    post(state.urls.checks, { id: state.id, story: collect() }).then(function (res) {
      if (seq !== checksSeq) return; /* a newer check is on its way */
      document.querySelectorAll(".editor-findings").forEach(function (box) { box.textContent = ""; });
      if (res.status !== 200) {
        var err = (res.data && res.data.error) || {};
        $("editor-checks-summary").textContent = "Checks wait for: " + (err.where ? err.where + ": " : "") + (err.message || "a server error");
        return;
      }
      var rubric = res.data;
      var errors = rubric.findings.filter(function (f) { return f.severity === "error"; }).length;
      $("editor-checks-summary").textContent = rubric.passed
        ? "Checks pass (score " + Number(rubric.score).toFixed(2) + ")."
        : "Checks: " + errors + " to fix (score " + Number(rubric.score).toFixed(2) + ").";
      $("editor-checks-summary").className = rubric.passed ? "desk-pass" : "desk-fail";
      Object.keys(units).forEach(function (path) {
        showFindings(units[path], rubric.by_owner[path] || [], rubric.compared[path] || []);
      });
      var general = $("editor-general-findings");
      rubric.general.forEach(function (f) { general.appendChild(findingNode(f)); });
    });
  }

  function findingNode(f) {
    var p = el("p", { "class": "editor-finding " + f.severity });
    p.appendChild(el("strong", {}, f.severity === "error" ? "To fix — " : f.severity === "warning" ? "Check — " : "Note — "));
    p.appendChild(document.createTextNode(f.text + (f.hint ? " (" + f.hint + ")" : "")));
    return p;
  }

  function showFindings(li, findings, compared) {
    var box = li.querySelector(".editor-findings");
    findings.forEach(function (f) { box.appendChild(findingNode(f)); });
    if (!findings.length && li._cites.length) box.appendChild(el("p", { "class": "editor-finding ok" }, li._name + ": supported by its cites."));
    if (compared.length) {
      var details = el("details", { "class": "editor-compared" });
      details.appendChild(el("summary", {}, "Claims compared (" + compared.length + ")"));
      var ul = el("ul");
      compared.forEach(function (c) { ul.appendChild(el("li", {}, (c.text || "(no text yet)") + " — " + c.title)); });
      details.appendChild(ul);
      box.appendChild(details);
    }
  }

  function save(event) {
    event.preventDefault();
    showError("");
    $("editor-save").disabled = true;
    $("editor-save-status").textContent = "Saving…";
    post(state.urls.save, { id: state.id, base_version: state.version, story: collect() }).then(function (res) {
      $("editor-save").disabled = false;
      var data = res.data || {};
      if (res.status === 200 || res.status === 201) {
        $("editor-conflict").hidden = true;
        var wasNew = !state.id;
        state.id = data.id; state.version = data.version; state.urls = Object.assign(state.urls, data.urls);
        dirty = false;
        $("editor-save-status").textContent = data.outcome === "unchanged" ? "Nothing to save: version " + data.version + "."
          : (data.outcome === "merged" ? "Saved with the other edits made meanwhile: version " : "Saved: version ") + data.version +
            (data.pending_of ? " of the pending changes." : ".");
        if (data.outcome === "merged") { render(data.story); }
        ["publish", "change", "revisions"].forEach(function (k) {
          var a = $("editor-" + k);
          a.href = data.urls[k];
          a.hidden = k === "publish" ? !state.can_publish : false;
        });
        $("editor-publish").textContent = data.pending_of ? "Publish changes…" : "Publish…";
        if (wasNew || window.location.pathname !== data.urls.editor) history.replaceState(null, "", data.urls.editor);
        runChecks();
      } else if (res.status === 409 && data.clashes) {
        showConflict(data);
      } else {
        var err = data.error || {};
        $("editor-save-status").textContent = "Not saved.";
        showError("Not saved: " + (err.where ? err.where + ": " : "") + (err.message || "the server refused the story (" + res.status + ")"));
      }
    }, function () {
      $("editor-save").disabled = false;
      $("editor-save-status").textContent = "Not saved: the server could not be reached. Your work is still on this screen.";
    });
  }

  function showConflict(data) {
    var box = $("editor-conflict-items");
    box.textContent = "";
    data.clashes.forEach(function (c) {
      var div = el("div", { "class": "editor-clash" });
      div.appendChild(el("h3", {}, c.where));
      div.appendChild(el("p", { "class": "editor-clash-label" }, "Saved meanwhile (now on the screen):"));
      div.appendChild(el("pre", { "class": "editor-clash-theirs" }, c.theirs));
      div.appendChild(el("p", { "class": "editor-clash-label" }, "Yours:"));
      div.appendChild(el("pre", { "class": "editor-clash-mine" }, c.mine));
      box.appendChild(div);
    });
    $("editor-conflict").hidden = false;
    $("editor-save-status").textContent = "Not saved: see the conflicting edits.";
    state.version = data.version;
    if (data.merged) render(data.merged);
    dirty = true;
    $("editor-conflict").scrollIntoView();
  }

  /* ------------------------------------------------------------- the claim search */

  function openSearch(unit) {
    searchUnit = unit;
    lastFocus = document.activeElement;
    $("editor-search-target").textContent = unit._name.toLowerCase();
    $("editor-search").hidden = false;
    $("editor-search-q").focus();
    if ($("editor-search-q").value) search();
  }

  function closeSearch() {
    $("editor-search").hidden = true;
    if (lastFocus) lastFocus.focus();
    searchUnit = null;
  }

  function search() {
    var q = $("editor-search-q").value.trim(), seq = ++searchSeq;
    if (!q) { $("editor-search-results").textContent = ""; return; }
    $("editor-search-status").textContent = "Searching…";
    fetch(state.urls.claims + "?q=" + encodeURIComponent(q), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (seq !== searchSeq) return;
        var list = $("editor-search-results");
        list.textContent = "";
        var results = data.results || [];
        $("editor-search-status").textContent = results.length ? results.length + " claims, recent sources first." : "No claim matches.";
        results.forEach(function (c) {
          state.claims[c.claim_id] = c;
          var li = el("li", { "class": "editor-result" });
          li.appendChild(el("span", { "class": "editor-cite-text" }, c.text || "(no text yet)"));
          li.appendChild(el("span", { "class": "editor-cite-meta" },
            c.title + " · " + c.publisher + " · " + c.published_date + (c.self_reported ? " · self-reported" : "") + " · claim " + c.claim_id));
          var cite = button("Cite", "editor-cite-this", "Cite claim " + c.claim_id);
          cite.addEventListener("click", function () { addCite(c); cite.disabled = true; cite.textContent = "Cited"; });
          li.appendChild(cite);
          list.appendChild(li);
        });
      });
  }

  function addCite(claim) {
    if (!searchUnit) return;
    var cites = searchUnit._cites;
    var cite = cites.filter(function (c) { return c.manifest_id === claim.manifest_id; })[0];
    if (!cite) { cite = { manifest_id: claim.manifest_id, claim_ids: [] }; cites.push(cite); }
    if (cite.claim_ids.indexOf(claim.claim_id) < 0) cite.claim_ids.push(claim.claim_id);
    citesList(searchUnit);
    changed();
  }

  /* ------------------------------------------------------------- wiring */

  function move(li, up) {
    var other = up ? li.previousElementSibling : li.nextElementSibling;
    if (!other) return;
    li.parentNode.insertBefore(li, up ? other : other.nextElementSibling);
    relabel(); changed();
    li.querySelector("button." + (up ? "editor-up" : "editor-down")).focus();
  }

  function onClick(event) {
    var b = event.target.closest("button");
    if (!b || !form.contains(b)) return;
    var unit = b.closest(".editor-unit"), section = b.closest(".editor-section");
    var item = unit || section;
    if (b.id === "editor-add-key-fact") {
      var fact = unitNode("fact", "", []);
      $("editor-key-facts").appendChild(fact); relabel(); changed(); fact.querySelector("textarea").focus();
    } else if (b.id === "editor-add-section") {
      var sec = sectionNode({ heading: "", paragraphs: [{ markdown: "", cites: [] }] });
      $("editor-sections").appendChild(sec); relabel(); changed(); sec.querySelector("input").focus();
    } else if (b.classList.contains("editor-add-paragraph")) {
      var para = unitNode("para", "", []);
      section.querySelector(".editor-paragraphs").appendChild(para); relabel(); changed(); para.querySelector("textarea").focus();
    } else if (b.classList.contains("editor-add-cite")) {
      openSearch(unit);
    } else if (b.classList.contains("editor-up") || b.classList.contains("editor-down")) {
      move(item, b.classList.contains("editor-up"));
    } else if (b.classList.contains("editor-remove")) {
      var what = unit ? unit._name : "this section and its paragraphs";
      if (window.confirm("Remove " + what.toLowerCase() + "?")) { item.remove(); relabel(); changed(); }
    }
  }

  // The slug follows the headline (as Django's slugify makes it) until the editor types one.
  function slugify(text) {
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\x00-\x7f]/g, "")
      .replace(/[^\w\s-]/g, "").toLowerCase().trim().replace(/[-\s_]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 200);
  }

  function prepopulateSlug() {
    var slug = $("editor-slug"), headline = $("editor-headline");
    if (!slug || !headline) return;
    var typed = slug.value.trim() !== "";
    slug.addEventListener("input", function () { typed = slug.value.trim() !== ""; });
    headline.addEventListener("input", function () { if (!typed) slug.value = slugify(headline.value); });
  }

  function start() {
    state = JSON.parse($("editor-state").textContent);
    form = $("editor-form");
    csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
    render(state.story);
    form.addEventListener("input", changed);
    prepopulateSlug();
    form.addEventListener("click", onClick);
    form.addEventListener("submit", save);
    $("editor-search-q").addEventListener("input", function () { clearTimeout(searchTimer); searchTimer = setTimeout(search, 250); });
    $("editor-search-q").addEventListener("keydown", function (e) { if (e.key === "Escape") closeSearch(); });
    $("editor-search-close").addEventListener("click", closeSearch);
    window.addEventListener("beforeunload", function (e) {
      if (dirty) { e.preventDefault(); e.returnValue = ""; }
    });
    if (state.autosave && state.autosave.story) {
      $("editor-autosave-time").textContent = new Date(state.autosave.saved_at).toLocaleString();
      $("editor-autosave-offer").hidden = false;
      $("editor-autosave-restore").addEventListener("click", function () {
        render(state.autosave.story); $("editor-autosave-offer").hidden = true; changed();
      });
      $("editor-autosave-dismiss").addEventListener("click", function () { $("editor-autosave-offer").hidden = true; });
    }
    if (state.id) runChecks();
    var target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    if (target) target.scrollIntoView();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
