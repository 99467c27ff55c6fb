/** C0 controls but tab and newline, DEL and C1 controls: what can move a terminal's cursor, clear it or retitle it. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` safe to write to a terminal: each control character a sender could
 * have put in a name or subject (ESC starting a sequence that clears the
 * screen or sets the window's title, BEL) is shown as a visible escape such
 * as `\x1b`. Tabs and line breaks stay. The stored data is not changed.
 */
export function showControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
