// Which models sessions can use: the providers' registry with the user's settings, which of them
// can be reached (a key, or a server that listed them), a model by "provider/id" (a typed id of a
// known provider included), and the default for new sessions. Reads the settings at each call;
// never throws.
import type { Model } from "../../shared/agent-types.ts";
import { BUILTIN_MODELS, customModel, findModel, listModels } from "../providers/index.ts";
import type { SessionSettings } from "./sessions-options.ts";

export class SessionModels {
  private readonly settings: SessionSettings;
  private readonly env: Record<string, string | undefined> | undefined;

  constructor(settings: SessionSettings, env: Record<string, string | undefined> | undefined) {
    this.settings = settings;
    this.env = env;
  }

  models(): Model[] {
    return listModels(this.settings.providerSettings());
  }

  /** Models that can be reached: hosted ones whose provider has a key, and those a server listed. */
  usableModels(): Model[] {
    const usable = this.providerUsable();
    return this.models().filter((m) => usable(m.provider));
  }

  private providerUsable(): (provider: string) => boolean {
    const env = this.env ?? process.env;
    const settings = this.settings.providerSettings();
    return (provider) => {
      if (provider === "anthropic") return Boolean(settings.anthropic?.apiKey || env.ANTHROPIC_API_KEY);
      if (provider === "openai") return Boolean(settings.openai?.apiKey || env.OPENAI_API_KEY);
      return (settings.custom ?? []).some((c) => c.id === provider);
    };
  }

  /**
   * A model by "provider/id": one of the registry's, or, for a known provider, a model id it does
   * not list (typed by the person), with that provider's API and conservative limits.
   */
  resolveModel(ref: string | null | undefined): Model | undefined {
    if (!ref) return undefined;
    const slash = ref.indexOf("/");
    if (slash <= 0 || slash === ref.length - 1) return undefined;
    const provider = ref.slice(0, slash);
    const id = ref.slice(slash + 1).trim();
    const settings = this.settings.providerSettings();
    const found = findModel(provider, id, settings);
    if (found || !id) return found;
    if (provider === "anthropic" || provider === "openai") {
      const like = BUILTIN_MODELS.find((m) => m.provider === provider)!;
      return { ...like, id, name: id, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
    }
    const server = settings.custom?.find((c) => c.id === provider);
    return server ? customModel(server, { id }) : undefined;
  }

  /** The default for new sessions: the user's choice, else the first model of a provider with a key. */
  defaultModel(): Model | undefined {
    const chosen = this.resolveModel(this.settings.defaultModel);
    if (chosen) return chosen;
    return this.usableModels()[0];
  }
}
