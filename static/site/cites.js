/* Optional: opening a cite marker shows the cited claim texts in place. Without this
   script the marker is a plain link to the sources list, where the same texts are. */
(function () {
  "use strict";
  var open = null;
  var opener = null;

  function close(returnFocus) {
    if (open) { open.remove(); open = null; }
    if (returnFocus && opener) { opener.focus(); }
  }

  function show(link) {
    close();
    var target = document.querySelector(link.getAttribute("href"));
    if (!target) { return false; }
    var box = document.createElement("div");
    box.className = "cite-popover";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", link.getAttribute("aria-label") || "Source");
    var closer = document.createElement("button");
    closer.type = "button";
    closer.textContent = "Close";
    closer.addEventListener("click", function () { close(true); });
    box.appendChild(closer);
    var title = target.querySelector(".source-title");
    if (title) { box.appendChild(title.cloneNode(true)); }
    var list = document.createElement("ul");
    (link.getAttribute("data-claims") || "").split(" ").forEach(function (id) {
      var claim = id && document.getElementById("claim-" + id);
      if (claim) {
        var item = document.createElement("li");
        item.textContent = claim.firstChild ? claim.childNodes[0].textContent : claim.textContent;
        list.appendChild(item);
      }
    });
    box.appendChild(list);
    var more = document.createElement("a");
    more.href = link.getAttribute("href");
    more.textContent = "Go to the source in the list";
    more.addEventListener("click", close);
    box.appendChild(more);
    var r = link.getBoundingClientRect();
    box.style.top = (window.scrollY + r.bottom + 6) + "px";
    box.style.left = Math.max(8, Math.min(window.scrollX + r.left - 20, window.scrollX + document.documentElement.clientWidth - 430)) + "px";
    document.body.appendChild(box);
    open = box;
    opener = link;
    closer.focus();
    return true;
  }

  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("sup.cite a");
    if (link) {
      if (show(link)) { e.preventDefault(); }
    } else if (open && !open.contains(e.target)) {
      close();
    }
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape" && open) { close(true); } });

  // Without this script every source shows its cited claims; with it the list is folded
  // (the markers show the claims in place) and unfolds the source a link leads to.
  function unfoldTarget() {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    var details = target && target.querySelector("details");
    if (details) { details.open = true; }
  }
  Array.prototype.forEach.call(document.querySelectorAll(".source-list details[open]"), function (d) { d.open = false; });
  unfoldTarget();
  window.addEventListener("hashchange", unfoldTarget);
})();
