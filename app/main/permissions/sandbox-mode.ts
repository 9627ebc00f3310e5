// How the sandbox composes with the permission policy. `planSandbox` says, for one call, where it
// would run once allowed (in the sandbox, in the sandbox with network, or outside) and which rule
// of the sandbox it would cross: the network, a path outside the project, a command the user
// marked as needing the real machine, the user's own "run again outside", or no sandbox at all.
// `sandboxDecision` then adjusts the policy's decision: deny rules still win; full auto stays
// allow (and outside); a call the user asked to run outside always asks; in "sandboxed auto" a
// command or an edit inside the project that crosses nothing runs without a question, unless the
// policy's question is firm (a protected file, a command name a deny rule might match). In every
// other mode the policy's decision stands, and an allowed command still runs in the sandbox.
// Pure apart from the port's one-shot "run outside" requests; never throws.
import type { SandboxCrossing, SandboxPlacement, SandboxRequestInfo, SandboxStatus } from "../../shared/sandbox.ts";
import { firstMatch, NETWORK_COMMANDS, outsidePaths } from "../sandbox/command-needs.ts";
import type { Placed } from "../sandbox/sandbox-service.ts";
import { commandMatches, EDIT_TOOLS, READ_ONLY_TOOLS, type CallSubjects, type Decision, type PermissionMode } from "./policy.ts";

/** What the permission layer needs of the sandbox (SandboxService implements it). */
export interface SandboxPort {
  readonly home: string;
  status(): SandboxStatus;
  /** Resolves once status() has its answer without probing on the event loop (never rejects). */
  detectInBackground?(): Promise<unknown>;
  networkAllowed(projectId: number): boolean;
  realMachineCommands(): string[];
  takeOutsideRequest(sessionId: number, command: string): boolean;
  place(sessionId: number, toolCallId: string, placed: Placed): void;
  /** A warning when the project's git repository was created by a sandboxed command (untrusted-repos.ts). */
  repositoryWarning?(projectDir: string): string | undefined;
}

export interface SandboxPlan {
  available: boolean;
  status: string;
  /** bash only: where the call runs once allowed. */
  placement?: SandboxPlacement;
  crossing?: SandboxCrossing;
  /** With placement "outside": why, for the result. */
  outsideReason?: string;
}

export interface PlanInput {
  toolName: string;
  subjects: CallSubjects;
  mode: PermissionMode;
  scope: { sessionId: number; projectId: number; projectDir: string };
  port: SandboxPort;
}

const OUTSIDE_RIGHTS = "with your full rights: it can read your keys and credentials, use the network, and change any of your files";

export function planSandbox(input: PlanInput): SandboxPlan {
  const plan = planPlacement(input);
  // A command that runs outside the sandbox runs git's config and hooks of a repository a
  // sandboxed command may have written: the question says so.
  const warning = plan.placement === "outside" && plan.crossing ? input.port.repositoryWarning?.(input.scope.projectDir) : undefined;
  return warning && plan.crossing ? { ...plan, crossing: { ...plan.crossing, message: `${plan.crossing.message} ${warning}` } } : plan;
}

function planPlacement({ toolName, subjects, mode, scope, port }: PlanInput): SandboxPlan {
  const status = port.status();
  const base = { available: status.available, status: status.message };
  if (toolName !== "bash") {
    if (!subjects.outsideProject) return base;
    const where = subjects.absolutePaths.find((_, i) => subjects.subjects[i] === subjects.absolutePaths[i]) ?? subjects.absolutePaths[0] ?? "";
    const message = EDIT_TOOLS.has(toolName)
      ? `${where} is outside the project: without a question, edits (and sandboxed commands) change files only inside the project folder.`
      : READ_ONLY_TOOLS.has(toolName)
        ? `${where} is outside the project: without a question, the agent reads only inside the project folder.`
        : `${where} is outside the project.`;
    return { ...base, crossing: { rule: "outside-path", message } };
  }

  const command = subjects.command ?? "";
  if (mode === "full-auto") return { ...base, placement: "outside", outsideReason: "Full auto: commands run outside the sandbox, without a question." };
  if (port.takeOutsideRequest(scope.sessionId, command)) {
    return {
      ...base,
      placement: "outside",
      crossing: { rule: "requested-outside", message: `You asked to run this command again outside the sandbox. It would run ${OUTSIDE_RIGHTS}.` },
      outsideReason: "You chose to run this command outside the sandbox.",
    };
  }
  if (!status.available) {
    return {
      ...base,
      placement: "outside",
      crossing: { rule: "no-sandbox", message: `${status.message} This command would run ${OUTSIDE_RIGHTS}.` },
      outsideReason: status.message,
    };
  }
  const parts = subjects.subjects;
  const real = firstMatch(parts, port.realMachineCommands(), commandMatches);
  if (real) {
    return {
      ...base,
      placement: "outside",
      crossing: {
        rule: "real-machine",
        message: `"${real.part}" is marked as needing the real machine (the rule "${real.pattern}" in Settings): if you allow it, it runs outside the sandbox, ${OUTSIDE_RIGHTS}.`,
      },
      outsideReason: `Marked as needing the real machine ("${real.pattern}").`,
    };
  }
  const projectNetwork = port.networkAllowed(scope.projectId);
  const net = projectNetwork ? undefined : firstMatch(parts, NETWORK_COMMANDS, commandMatches);
  const placement: SandboxPlacement = projectNetwork || net ? "sandbox-network" : "sandbox";
  if (net) {
    return {
      ...base,
      placement,
      crossing: {
        rule: "network",
        message: `"${net.part}" needs the network, and sandboxed commands have none: if you allow it, it runs in the sandbox with network (still unable to change files outside the project or read your keys).`,
      },
    };
  }
  const outside = outsidePaths(parts, scope.projectDir, port.home);
  if (outside.length > 0) {
    const shown = outside.slice(0, 3).join(", ") + (outside.length > 3 ? ` and ${outside.length - 3} more` : "");
    return {
      ...base,
      placement,
      crossing: {
        rule: "outside-path",
        message: `${shown} ${outside.length === 1 ? "is" : "are"} outside the project: in the sandbox the command can read ${outside.length === 1 ? "it" : "them"} (unless hidden) but not change ${outside.length === 1 ? "it" : "them"}.`,
      },
    };
  }
  return { ...base, placement };
}

export function sandboxDecision(decision: Decision, plan: SandboxPlan, input: { toolName: string; subjects: CallSubjects; mode: PermissionMode }): Decision {
  // A firm question (a protected file, a command that could be one a deny rule forbids) stays.
  if (decision.action === "deny" || decision.firm || input.mode === "full-auto") return decision;
  if (plan.crossing?.rule === "requested-outside") return { ...decision, action: "ask", by: "mode", reason: plan.crossing.message };
  if (decision.action === "allow" || input.mode !== "sandboxed-auto" || !plan.available || plan.crossing) return decision;
  if (input.toolName === "bash") return { ...decision, action: "allow", by: "mode" };
  if (EDIT_TOOLS.has(input.toolName) && !input.subjects.outsideProject) return { ...decision, action: "allow", by: "mode" };
  return decision;
}

/** What the dialog shows about the sandbox. */
export function requestInfo(plan: SandboxPlan): SandboxRequestInfo {
  return {
    available: plan.available,
    status: plan.status,
    ...(plan.placement ? { placement: plan.placement } : {}),
    ...(plan.crossing ? { crossing: plan.crossing } : {}),
  };
}

/** Where an allowed bash call runs: as planned, or outside when the user chose that in the dialog. */
export function placementFor(plan: SandboxPlan, chosenOutside: boolean): Placed {
  if (chosenOutside) return { placement: "outside", reason: "You chose to run this command outside the sandbox." };
  return { placement: plan.placement ?? "sandbox", ...(plan.outsideReason ? { reason: plan.outsideReason } : {}) };
}
