// The score field keys, as in the window: a digit sets the whole-number score, + and -
// (or Up and Down) move it by one step, Enter saves (the form's own submit).
"use strict";
(function () {
  var field = document.getElementById("score");
  if (!field) { return; }
  var low = parseFloat(field.dataset.low);
  var high = parseFloat(field.dataset.high);
  var step = parseFloat(field.dataset.step);
  var top = Math.round((high - low) / step);
  var decimals = (String(field.dataset.step).split(".")[1] || "").length;

  function codeOf(text) {
    var value = parseFloat(text);
    if (isNaN(value)) { return null; }
    var code = Math.round((value - low) / step);
    return Math.max(0, Math.min(top, code));
  }
  function show(code) {
    field.value = String(parseFloat((low + code * step).toFixed(decimals)));
    field.select();
  }
  field.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key;
    if (key.length === 1 && key >= "0" && key <= "9") {
      var digit = parseInt(key, 10);
      if (digit >= low && digit <= high) { show(Math.round((digit - low) / step)); }
      event.preventDefault();
    } else if (key === "+" || key === "=" || key === "ArrowUp") {
      var up = codeOf(field.value);
      show(up === null ? 0 : Math.min(top, up + 1));
      event.preventDefault();
    } else if (key === "-" || key === "ArrowDown") {
      var down = codeOf(field.value);
      show(down === null ? top : Math.max(0, down - 1));
      event.preventDefault();
    }
  });
  var form = document.getElementById("rate-form");
  var sent = false;
  form.addEventListener("submit", function (event) {
    if (sent) { event.preventDefault(); return; }  // one Enter, one save
    sent = true;
  });
  field.focus();
  field.select();
}());
