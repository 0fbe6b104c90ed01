// What pi itself resolves from its configuration: the model's context window and the compaction settings.
//
// Usage: PI_CODING_AGENT_DIR=... node pi_config.mjs <pi-package-dir> <cwd> <provider> <modelId>
// Prints {"agent_dir", "compaction": {enabled, reserveTokens, keepRecentTokens}, "context_window"}.

import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [piDir, cwd, provider, modelId] = process.argv.slice(2);
const dist = join(resolve(piDir), "dist");
const load = (rel) => import(pathToFileURL(join(dist, rel)).href);
const { getAgentDir } = await load("config.js");
const { SettingsManager } = await load("core/settings-manager.js");
const { ModelRegistry } = await load("core/model-registry.js");
const { AuthStorage } = await load("core/auth-storage.js");

const agentDir = getAgentDir();
const settings = SettingsManager.create(resolve(cwd), agentDir);
const registry = ModelRegistry.create(AuthStorage.inMemory(), join(agentDir, "models.json"));
const model = registry.find(provider, modelId);
process.stdout.write(
	JSON.stringify({
		agent_dir: agentDir,
		compaction: settings.getCompactionSettings(),
		context_window: model?.contextWindow ?? null,
	}),
);
