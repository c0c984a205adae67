// What the player types, before it is sent.

// splitCommands splits a typed line at each ";" ("\;" is a ";" that
// stays), dropping empty commands; an empty line stays one empty line.
export function splitCommands(text) {
  const cmds = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\" && text[i + 1] === ";") {
      cur += ";";
      i++;
    } else if (text[i] === ";") {
      cmds.push(cur);
      cur = "";
    } else {
      cur += text[i];
    }
  }
  cmds.push(cur);
  const kept = cmds.filter((c) => c.trim() !== "");
  return kept.length > 0 ? kept : [""];
}
