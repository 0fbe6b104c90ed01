// Ask the installed pi-coding-agent what it makes of session files, using pi's own functions.
//
// Usage: node oracle.mjs <pi-package-dir> [--persist] [--keep 2000,20000] FILE...
// Prints one JSON object {"pi_version", "files": {FILE: report}}.
//
// By default every file is opened with a non-persisting SessionManager, so pi migrates in memory and never
// writes. With --persist the file is opened the way `pi --session FILE` opens it (pi may rewrite it); the
// caller compares the bytes before and after to learn whether pi loads the file unchanged.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const piDir = resolve(args.shift());
let persist = false;
let keeps = [2000, 20000];
const files = [];
while (args.length) {
	const a = args.shift();
	if (a === "--persist") persist = true;
	else if (a === "--keep") keeps = args.shift().split(",").map(Number);
	else files.push(a);
}

const dist = join(piDir, "dist");
const load = (rel) => import(pathToFileURL(join(dist, rel)).href);
const sm = await load("core/session-manager.js");
const comp = await load("core/compaction/compaction.js");
const msgs = await load("core/messages.js");
const { AgentSession } = await load("core/agent-session.js");
const pkg = JSON.parse(readFileSync(join(piDir, "package.json"), "utf8"));

function roleOf(entry) {
	return entry.type === "message" && entry.message && typeof entry.message === "object" ? (entry.message.role ?? null) : null;
}

// Which path entry produced each context message. buildSessionContext pushes entry.message itself for message
// entries (identity), and builds fresh objects for the compaction summary, custom messages and branch summaries;
// those are matched on the fields pi copies into them, in path order.
function contextEntryIds(messages, path, lineOf) {
	const used = new Set();
	const latestCompaction = [...path].reverse().find((e) => e.type === "compaction");
	return messages.map((m) => {
		let found;
		if (m.role === "compactionSummary" && latestCompaction && m.summary === latestCompaction.summary) {
			found = latestCompaction;
		} else {
			found = path.find(
				(e) =>
					!used.has(e) &&
					((e.type === "message" && e.message === m) ||
						(e.type === "custom_message" && m.role === "custom" && e.content === m.content && e.customType === m.customType) ||
						(e.type === "branch_summary" && m.role === "branchSummary" && e.summary === m.summary && e.fromId === m.fromId)),
			);
		}
		if (!found) throw new Error(`context message with role ${m.role} has no entry on the path`);
		used.add(found);
		// An entry without an id is named by its file line, as ctxscope names it.
		return found.id ?? `line:${lineOf.get(found)}`;
	});
}

// The path buildSessionContext walks: from the leaf, or, when the leaf id is undefined (the last entry has no id),
// from the last entry; getBranch() is empty then. An explicit null leaf gives no context at all.
function contextPath(manager, entries) {
	const leafId = manager.getLeafId();
	if (leafId === null) return [];
	let current = leafId ? manager.getEntry(leafId) : undefined;
	if (!current) current = entries[entries.length - 1];
	const path = [];
	while (current) {
		path.unshift(current);
		current = current.parentId ? manager.getEntry(current.parentId) : undefined;
	}
	return path;
}

function cutPoint(path, keepRecentTokens, lineOf) {
	const settings = { ...comp.DEFAULT_COMPACTION_SETTINGS, keepRecentTokens };
	const prep = comp.prepareCompaction(path, settings);
	if (!prep) return null;
	// prepareCompaction does not return the turn start; find it with pi's findCutPoint over the same window and
	// check that both agree on the first kept entry.
	let prevIdx = -1;
	for (let i = path.length - 1; i >= 0; i--) {
		if (path[i].type === "compaction") {
			prevIdx = i;
			break;
		}
	}
	let start = 0;
	if (prevIdx >= 0) {
		const kept = path.findIndex((e) => e.id === path[prevIdx].firstKeptEntryId);
		start = kept >= 0 ? kept : prevIdx + 1;
	}
	const cut = comp.findCutPoint(path, start, path.length, keepRecentTokens);
	if (path[cut.firstKeptEntryIndex].id !== prep.firstKeptEntryId || cut.isSplitTurn !== prep.isSplitTurn) {
		throw new Error("findCutPoint and prepareCompaction disagree; the oracle's window is out of date");
	}
	// What pi keeps once this compaction is written: its own context after a compaction entry appended at the
	// leaf with this firstKeptEntryId, the new summary aside.
	const probe = {
		type: "compaction",
		id: "oracle-probe",
		parentId: path[path.length - 1].id,
		timestamp: new Date(0).toISOString(),
		summary: "probe",
		firstKeptEntryId: prep.firstKeptEntryId,
		tokensBefore: 0,
	};
	const keptMessages = sm.buildSessionContext([...path, probe], probe.id).messages.slice(1);
	return {
		kept_ids: contextEntryIds(keptMessages, path, lineOf),
		first_kept_entry_id: prep.firstKeptEntryId,
		split_turn: prep.isSplitTurn,
		tokens_before: prep.tokensBefore,
		turn_start_entry_id: cut.turnStartIndex >= 0 ? path[cut.turnStartIndex].id : null,
		boundary_start_entry_id: path[start]?.id ?? null,
		messages_to_summarize: prep.messagesToSummarize.length,
		turn_prefix_messages: prep.turnPrefixMessages.length,
		read_files: [...prep.fileOps.read].sort(),
		edited_files: [...prep.fileOps.edited].sort(),
		previous_summary: prep.previousSummary ?? null,
	};
}

// The 1-based file line of each entry pi parses, in pi's order (blank and malformed lines skipped as pi does).
function parsedLines(raw) {
	const lines = [];
	raw.split("\n").forEach((line, i) => {
		if (!line.trim()) return;
		try {
			JSON.parse(line);
			lines.push(i + 1);
		} catch {
			// pi skips it too
		}
	});
	return lines;
}

function report(file) {
	const raw = readFileSync(file, "utf8");
	const lineOf = new Map();
	const loaded = sm.loadEntriesFromFile(file);
	// persist=false: pi migrates in memory; a header-less or empty file becomes a fresh in-memory session.
	const manager = persist ? sm.SessionManager.open(file) : new sm.SessionManager(process.cwd(), "", file, false);
	const header = manager.getHeader();
	const entries = manager.getEntries();
	const path = manager.getBranch();
	if (loaded.length > 0) {
		const lines = parsedLines(raw);
		manager.fileEntries.forEach((e, k) => lineOf.set(e, lines[k]));
	}
	const context = manager.buildSessionContext();
	const ids = contextEntryIds(context.messages, contextPath(manager, entries), lineOf);
	const estimate = comp.estimateContextTokens(context.messages);
	// pi's own getContextUsage, run against this session with a placeholder window (only "unknown" is read).
	const usage = AgentSession.prototype.getContextUsage.call({
		model: { contextWindow: 1_000_000 },
		sessionManager: manager,
		messages: context.messages,
	});
	const tree = {};
	const roots = [];
	// An entry without an id is named by its file line here too (pi keys it as undefined).
	const nameOf = (e) => e.id ?? `line:${lineOf.get(e)}`;
	const walk = (node) => {
		tree[nameOf(node.entry)] = node.children.map((c) => nameOf(c.entry));
		for (const c of node.children) walk(c);
	};
	for (const r of manager.getTree()) {
		roots.push(nameOf(r.entry));
		walk(r);
	}
	const labels = {};
	for (const e of entries) {
		const label = manager.getLabel(e.id);
		if (label !== undefined) labels[e.id] = label;
	}
	const cuts = {};
	for (const k of keeps) cuts[String(k)] = cutPoint(path, k, lineOf);
	return {
		valid: loaded.length > 0,
		raw_lines: raw.split("\n").filter((l) => l.trim()).length,
		loaded_entries: loaded.length,
		// The file's own version (pi migrates older files to 3 in memory).
		version: loaded.length > 0 ? (loaded.find((e) => e.type === "session")?.version ?? 1) : null,
		session_id: header?.id ?? null,
		leaf_id: manager.getLeafId() ?? null,
		context: context.messages.map((m, i) => ({
			id: ids[i],
			role: m.role,
			tokens: comp.estimateTokens(m),
			sent: msgs.convertToLlm([m]).length > 0,
		})),
		estimate: estimate.tokens,
		estimate_usage_tokens: estimate.usageTokens,
		estimate_trailing_tokens: estimate.trailingTokens,
		estimate_last_usage_index: estimate.lastUsageIndex,
		unknown: usage?.tokens === null,
		cut_points: cuts,
		entries: entries.map((e) => ({
			id: e.id ?? null,
			parentId: e.parentId ?? null,
			type: e.type,
			role: roleOf(e),
			firstKeptEntryId: e.type === "compaction" ? (e.firstKeptEntryId ?? null) : null,
			line: lineOf.get(e) ?? null,
		})),
		tree: { roots, children: tree },
		branch_ids: path.map((e) => e.id),
		labels,
		thinking_level: context.thinkingLevel,
		model: context.model,
	};
}

const out = { pi_version: pkg.version, files: {} };
for (const f of files) {
	try {
		out.files[f] = report(f);
	} catch (err) {
		out.files[f] = { error: String(err?.stack ?? err) };
	}
}
process.stdout.write(JSON.stringify(out));
