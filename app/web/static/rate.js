// The pages' few scripts (no inline script: the CSP allows this file only).
// Score field: what the worker types stays as typed (3.25, 2.5); + and - (or Up and Down)
// move the value by one step of the scale, from the middle when the field is empty; a
// value off the scale or its grid is refused here, the field kept and focused; Enter saves.
"use strict";
(function () {
  var field = document.getElementById("score");
  // Start on the landing page, or Continue after a practice pair's feedback
  var start = document.getElementById("start") || document.getElementById("continue");
  var copy = document.getElementById("copy-code");
  if (start) {
    start.focus({preventScroll: true});
    window.addEventListener("pageshow", function () { start.focus({preventScroll: true}); });
  }
  if (copy) { copyButton(copy); }
  // a page that answers a rating names its own address: put it in the address bar, so a
  // reload or Back asks for this page and never sends the rating again
  var answer = document.querySelector("main[data-address]");
  if (answer && window.history && window.history.replaceState) {
    window.history.replaceState(null, "", answer.dataset.address);
  }
  if (!field) { return; }
  var low = parseFloat(field.dataset.low);
  var high = parseFloat(field.dataset.high);
  var step = parseFloat(field.dataset.step);
  var top = Math.round((high - low) / step);
  var decimals = (String(field.dataset.step).split(".")[1] || "").length;
  var error = document.getElementById("score-error");
  var form = document.getElementById("rate-form");
  var sent = false;

  function codeOf(text) {  // the grid code of a typed value, or null when it is none
    var trimmed = text.trim();
    if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) { return null; }
    var value = parseFloat(trimmed);
    var exact = (value - low) / step;
    var code = Math.round(exact);
    if (Math.abs(exact - code) > 1e-6 || code < 0 || code > top) { return null; }
    return code;
  }
  function valueOf(code) { return String(parseFloat((low + code * step).toFixed(decimals))); }
  function refuse(text) {
    error.textContent = text;
    error.hidden = false;
    field.setAttribute("aria-invalid", "true");
    field.focus();
  }
  function move(by) {
    var text = field.value.trim();
    var code;
    if (text === "") {
      code = Math.round(top / 2) + by;  // an empty field: a step from the scale's middle
    } else {
      var value = parseFloat(text);
      if (isNaN(value)) { refuse(field.dataset.help); return; }
      code = Math.round((value - low) / step) + by;  // off the grid: the nearest point first
    }
    field.value = valueOf(Math.max(0, Math.min(top, code)));
    clear();
  }
  function clear() {
    error.hidden = true;
    field.removeAttribute("aria-invalid");
  }
  field.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key;
    if (key === "+" || key === "=" || key === "ArrowUp") {
      move(1);
      event.preventDefault();
    } else if (key === "-" || key === "ArrowDown") {
      move(-1);
      event.preventDefault();
    }
  });
  field.addEventListener("input", clear);
  form.addEventListener("submit", function (event) {
    if (codeOf(field.value) === null) {
      event.preventDefault();
      refuse((field.value.trim() ? "\u201c" + field.value.trim() + "\u201d is not a score of " +
              "this scale. " : "") + field.dataset.help);
      return;
    }
    if (sent) { event.preventDefault(); return; }  // one Enter, one save
    sent = true;
  });
  // a page shown again by Back (or after an error page) takes a new Enter, in the field:
  // a browser that restores it from its page cache runs no script but this event
  window.addEventListener("pageshow", function () { sent = false; field.focus(); });
  field.focus();
  field.select();

  function copyButton(button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var code = document.getElementById("completion-code").textContent.trim();
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(code).then(done, function () { selectCode(); });
      } else {
        selectCode();
      }
    });
  }
  function selectCode() {
    var range = document.createRange();
    range.selectNodeContents(document.getElementById("completion-code"));
    var chosen = window.getSelection();
    chosen.removeAllRanges();
    chosen.addRange(range);
    try { if (document.execCommand("copy")) { copy.textContent = "Copied"; } } catch (e) { /* the code stays selected */ }
  }
}());
