// Makes a session live: reads its whole transcript (the agent holds it), finds its project and
// model (a session without one gets the default, stored), and builds its LiveSession with the
// services' ports. Throws ServiceError with a message for the user when the session, its project
// or any model is missing.
import { ServiceError } from "../../shared/errors.ts";
import { LiveSession } from "./live-session.ts";
import { outputFolderFor } from "./output-folders.ts";
import type { SessionModels } from "./session-models.ts";
import type { SessionsServiceOptions } from "./sessions-options.ts";

export function createLiveSession(o: SessionsServiceOptions, models: SessionModels, sessionId: number): LiveSession {
  const session = o.store.getSession(sessionId);
  if (!session) throw new ServiceError("not-found", `Session ${sessionId} does not exist.`);
  // The agent holds the whole transcript (the model's view is computed from it).
  const opened = { session, messages: o.store.readMessages(sessionId) };
  const project = o.store.getProject(opened.session.projectId);
  if (!project) throw new ServiceError("not-found", `The project of session ${sessionId} is gone.`);
  const model = models.resolveModel(opened.session.model) ?? models.defaultModel();
  if (!model) {
    throw new ServiceError(
      "unavailable",
      "No model is available: add an Anthropic or OpenAI key, or a local server, in Settings → Providers (or set ANTHROPIC_API_KEY / OPENAI_API_KEY).",
    );
  }
  if (!opened.session.model) o.store.setSessionModel(sessionId, `${model.provider}/${model.id}`);
  const live = new LiveSession({
    sessionId,
    projectId: project.id,
    projectDir: project.folder,
    messages: opened.messages,
    baseToolNames: opened.session.baseToolNames,
    model,
    store: o.store,
    hub: o.hub,
    streamFn: o.streamFn,
    prepareRequest: o.prepareRequest,
    hooks: (scope) => o.permissions.hooks(scope),
    autoCompact: () => o.settings.autoCompact,
    bashTimeoutMs: o.bashTimeoutMs,
    lowerCommandPriority: () => o.settings.lowerCommandPriority ?? true,
    redact: o.redact,
    sandbox: o.sandbox?.forSession({ sessionId, projectId: project.id, projectDir: project.folder }),
    toolSource: o.toolSource,
    secrets: o.secrets,
    outputDir: o.outputRoot ? outputFolderFor(o.outputRoot, sessionId) : undefined,
    checkpoints: o.checkpoints,
    onStateChange: (s) => o.hub.emit("session.state", s.state(o.permissions.pendingFor(s.sessionId))),
    onRunEnd: (s, last) => {
      const info = o.store.getSession(s.sessionId);
      if (info) o.hub.emit("session.updated", info);
      o.onRunEnd?.(info, last);
    },
  });
  return live;
}
