// Where a memory came from, said once: who said or added it, and how Assist came to
// keep it ("Said by Anna in a conversation", "Asked to remember by Bob", "Added by
// hand or imported"). The person is named by name; "someone" is never a signed-in
// person (their turns say who they are).
const NAMED = ["command", "said", "inferred"];

export function provenance(memory, t, people) {
  const meta = memory.metadata ?? {};
  const stated = memory.source === "user_stated";
  const how = {
    command: "command",
    conversation: stated ? "said" : "inferred",
    tool: "tool",
    review: "review",
  }[meta.learned_by] ?? (stated ? "hand" : "guessed");
  const name = meta.speaker ? people.name(meta.speaker) : null;
  const key = NAMED.includes(how) && !name ? `${how}.nobody` : how;
  return t(`provenance.${key}`, { name });
}
