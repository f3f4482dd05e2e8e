// Carries out the server's `ui-command`s on the page.
//
// Behaviour follows the standard UI command vocabulary (research notes rtvi-ui.md §5.1, the same
// as client-react's default handlers): the target is found by snapshot ref first
// (`findElementByRef`), then by `document.getElementById(target_id)`; a command whose target is
// missing, or that the user could not do themselves (disabled, read-only, hidden), does nothing
// and says why on console.debug.

import { findElementByRef } from "@pipecat-ai/client-js";

/** CSS class the `highlight` command toggles. */
export const HIGHLIGHT_CLASS = "ui-highlight";
/** How long a highlight lasts when the payload has no `duration_ms`. */
export const DEFAULT_HIGHLIGHT_MS = 1500;

function refuse(command, payload, why) {
  console.debug(`ui-command ${command} refused: ${why}`, payload);
  return false;
}

/** The element a payload points at: its `ref` if that still resolves, else its `target_id`. */
export function resolveTarget(payload) {
  if (payload?.ref) {
    const el = findElementByRef(payload.ref);
    if (el) return el;
  }
  if (payload?.target_id) return document.getElementById(payload.target_id);
  return null;
}

function scrollTo(el, payload) {
  const behavior = payload.behavior === "instant" || payload.behavior === "smooth" ? payload.behavior : "smooth";
  el.scrollIntoView({ behavior, block: "start", inline: "nearest" });
}

let highlighted = null; // { el, timer } of the current highlight; a new one clears it

function highlight(el, payload) {
  if (highlighted) {
    clearTimeout(highlighted.timer);
    highlighted.el.classList.remove(HIGHLIGHT_CLASS);
  }
  el.classList.add(HIGHLIGHT_CLASS);
  const ms = payload.duration_ms ?? DEFAULT_HIGHLIGHT_MS;
  const entry = { el, timer: 0 };
  entry.timer = setTimeout(() => {
    el.classList.remove(HIGHLIGHT_CLASS);
    if (highlighted === entry) highlighted = null;
  }, ms);
  highlighted = entry;
}

function focus(el, payload) {
  if (!(el instanceof HTMLElement)) return refuse("focus", payload, "target cannot take focus");
  el.focus({ preventScroll: false });
}

function click(el, payload) {
  if (!(el instanceof HTMLElement)) return refuse("click", payload, "target is not an HTML element");
  if (el.disabled === true) return refuse("click", payload, "target is disabled");
  if (el.getAttribute("aria-disabled") === "true") return refuse("click", payload, "target is aria-disabled");
  el.click();
}

function setInputValue(el, payload) {
  const value = String(payload.value ?? "");
  if (el instanceof HTMLSelectElement) {
    if (el.disabled) return refuse("set_input_value", payload, "select is disabled");
    el.value = value; // `replace` means nothing for a select
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return;
  }
  if (!(el instanceof HTMLInputElement) && !(el instanceof HTMLTextAreaElement)) {
    return refuse("set_input_value", payload, "target is not an input, textarea or select");
  }
  if (el.disabled) return refuse("set_input_value", payload, "input is disabled");
  if (el.readOnly) return refuse("set_input_value", payload, "input is read-only");
  if (el instanceof HTMLInputElement && el.type === "hidden") {
    return refuse("set_input_value", payload, "input is hidden");
  }
  el.value = payload.replace === false ? el.value + value : value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

// Text node and offset inside it at character `offset` of `el`'s text, or null.
function textPosition(el, offset) {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let seen = 0;
  let last = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const len = node.data.length;
    if (seen + len >= offset) return [node, offset - seen];
    seen += len;
    last = node;
  }
  return last && offset === seen ? [last, last.data.length] : null;
}

function selectText(el, payload) {
  el.scrollIntoView({ behavior: "smooth", block: "center" });
  const start = payload.start_offset ?? null;
  const end = payload.end_offset ?? null;
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    const valid = start !== null && end !== null && start >= 0 && start <= end && end <= el.value.length;
    el.focus({ preventScroll: true });
    try {
      if (valid) el.setSelectionRange(start, end);
      else el.select();
    } catch {
      el.select(); // inputs such as type=email have no selection range
    }
    return;
  }
  const range = document.createRange();
  const length = (el.textContent ?? "").length;
  const from = start !== null && end !== null && start >= 0 && start <= end && end <= length ? textPosition(el, start) : null;
  const to = from ? textPosition(el, end) : null;
  if (from && to) {
    range.setStart(from[0], from[1]);
    range.setEnd(to[0], to[1]);
  } else {
    range.selectNodeContents(el);
  }
  const selection = window.getSelection();
  if (!selection) return;
  selection.removeAllRanges();
  selection.addRange(range);
}

const HANDLERS = {
  scroll_to: scrollTo,
  highlight,
  focus,
  click,
  set_input_value: setInputValue,
  select_text: selectText,
};

/**
 * Carries out one `ui-command` (`{command, payload}`, the `data` of the RTVI message).
 * Returns true when it was carried out, false when it was unknown, its target was not found or
 * the target refused it (the reason goes to console.debug).
 */
export function runUICommand(data) {
  const command = data?.command;
  const payload = data?.payload ?? {};
  const handler = HANDLERS[command];
  if (!handler) {
    console.debug(`ui-command ${command} ignored: this page does not handle it`, payload);
    return false;
  }
  const el = resolveTarget(payload);
  if (!el) {
    refuse(command, payload, "no element for this ref or target_id");
    return false;
  }
  try {
    return handler(el, payload) !== false;
  } catch (err) {
    console.warn(`ui-command ${command} failed`, err);
    return false;
  }
}
