import { capitalised } from "./dom.js";

// An export document (the server's JSON export) as a file to download: JSON (which
// imports back), Markdown (to read) or CSV (for a spreadsheet). `keep(memory)` picks
// the memories; `personName(scope)` names whom each is about.
export const FORMATS = ["json", "markdown", "csv"];

const CSV_COLUMNS = ["id", "content", "category", "person", "tags", "source", "confidence",
  "created_at", "updated_at", "last_accessed", "access_count"];

export function exportFile(document_, format, { keep = () => true, personName, t }) {
  const memories = document_.memories.filter(keep);
  if (format === "markdown") {
    return { text: markdown(memories, personName, t), type: "text/markdown", ext: "md", count: memories.length };
  }
  if (format === "csv") {
    return { text: csv(memories, personName), type: "text/csv", ext: "csv", count: memories.length };
  }
  const filtered = { ...document_, count: memories.length, memories };
  return {
    text: JSON.stringify(filtered, null, 2), type: "application/json", ext: "json",
    count: memories.length,
  };
}

// Offers the file for download (through a link in `host`, gone at once).
export function download(host, file) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([file.text], { type: file.type }));
  link.download = `assist-memory-${new Date().toISOString().slice(0, 10)}.${file.ext}`;
  host.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

// One section per category, one line per memory with whom it is about.
function markdown(memories, personName, t) {
  const byCategory = new Map();
  for (const memory of memories) {
    if (!byCategory.has(memory.category)) byCategory.set(memory.category, []);
    byCategory.get(memory.category).push(memory);
  }
  const lines = [`# ${t("app.title")}`, ""];
  for (const [category, items] of byCategory) {
    lines.push(`## ${t(`category.${category}`)}`, "");
    for (const memory of items) {
      const tags = memory.tags.map((tag) => ` #${tag}`).join("");
      lines.push(`- ${capitalised(memory.content)} (${personName(memory.scope)})${tags}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

// RFC 4180: every field quoted, quotes doubled; a byte order mark so spreadsheets
// read UTF-8 (Chinese) correctly.
function csv(memories, personName) {
  const quote = (value) => `"${String(value ?? "").replaceAll('"', '""')}"`;
  const rows = memories.map((memory) => CSV_COLUMNS.map((column) => {
    if (column === "person") return personName(memory.scope);
    if (column === "tags") return memory.tags.join(", ");
    return memory[column];
  }));
  return `\ufeff${[CSV_COLUMNS, ...rows].map((row) => row.map(quote).join(",")).join("\r\n")}\r\n`;
}
