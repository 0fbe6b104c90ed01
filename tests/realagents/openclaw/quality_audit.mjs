// Runs OpenClaw's own compaction-summary quality audit on a summary ctxscope wrote.
//
//   node quality_audit.mjs <openclaw package dir>  < [{"summary", "messages"}, …]  > [{"ok", "reasons", …}, …]
//
// OpenClaw bundles the audit (auditSummaryQuality, from its compaction-safeguard-quality module) without exporting
// it. A module load hook appends an export of the functions the safeguard calls to the one bundle file that
// defines them, in memory: nothing in the installed package is written. The inputs are assembled the way the
// safeguard assembles them: identifiers from the text of the last ten summarized messages, the latest user ask
// of the summarized messages, the strict identifier policy, the summary as its own structural summary.
import { readdirSync, readFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const NAMES = ["auditSummaryQuality", "extractOpaqueIdentifiers", "extractMessageText", "extractLatestUserAsk"];

const dist = join(process.argv[2], "dist");
const bundle = readdirSync(dist)
  .filter((name) => name.endsWith(".mjs"))
  .map((name) => join(dist, name))
  .find((path) => readFileSync(path, "utf8").includes("function auditSummaryQuality("));
if (!bundle) {
  console.error(`no bundle in ${dist} defines auditSummaryQuality: this OpenClaw version moved its audit`);
  process.exit(2);
}
const bundleUrl = pathToFileURL(bundle).href;
registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (url !== bundleUrl) return loaded;
    const source = `${loaded.source}\nexport { ${NAMES.map((n) => `${n} as __ctxscope_${n}`).join(", ")} };\n`;
    return { ...loaded, source, shortCircuit: true };
  },
});
const oc = await import(bundleUrl);

function audit({ summary, messages }) {
  const identifiers = oc.__ctxscope_extractOpaqueIdentifiers(
    messages.slice(-10).map(oc.__ctxscope_extractMessageText).filter(Boolean).join("\n"),
  );
  const latestAsk = oc.__ctxscope_extractLatestUserAsk(messages);
  const verdict = oc.__ctxscope_auditSummaryQuality({
    summary,
    structuralSummary: summary,
    sourceSummaries: [summary],
    identifiers,
    latestAsk,
    identifierPolicy: "strict",
  });
  return { ...verdict, identifiers, latestAsk };
}

// Not readFileSync(0): a large piped input can meet a non-blocking stdin (EAGAIN).
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
process.stdout.write(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")).map(audit)) + "\n");
process.exit(0);
