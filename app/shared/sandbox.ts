// The sandbox vocabulary every layer shares: which sandbox this machine has, where a command runs
// (its placement), which rule of the sandbox a call would cross, and what a bash result says
// about the sandbox. TypeBox schemas, so the same shapes are validated at the IPC boundary.
import { Type, type Static } from "@sinclair/typebox";

export const SandboxKindSchema = Type.Union([Type.Literal("bubblewrap"), Type.Literal("seatbelt"), Type.Literal("none")]);

/** What this machine offers: checked once at start (bwrap on PATH and able to make namespaces). */
export const SandboxStatusSchema = Type.Object({
  kind: SandboxKindSchema,
  available: Type.Boolean(),
  /** For a person: what the sandbox does, or why there is none and how to get one. */
  message: Type.String(),
});

/**
 * Where an approved command runs: in the sandbox (no network), in the sandbox with network, or
 * outside it with the user's full rights.
 */
export const SandboxPlacementSchema = Type.Union([Type.Literal("sandbox"), Type.Literal("sandbox-network"), Type.Literal("outside")]);

/** The rule of the sandbox a call would cross, which is why it asks. */
export const SandboxCrossingSchema = Type.Object({
  rule: Type.Union([Type.Literal("network"), Type.Literal("outside-path"), Type.Literal("real-machine"), Type.Literal("requested-outside"), Type.Literal("no-sandbox")]),
  message: Type.String(),
});

/** What a permission dialog shows about the sandbox for one call. */
export const SandboxRequestInfoSchema = Type.Object({
  available: Type.Boolean(),
  /** bash only: where the command runs if the user allows it (the dialog offers "outside" separately). */
  placement: Type.Optional(SandboxPlacementSchema),
  crossing: Type.Optional(SandboxCrossingSchema),
  /** The sandbox's status line (why there is none, when there is none). */
  status: Type.String(),
});

export type SandboxKind = Static<typeof SandboxKindSchema>;
export type SandboxStatus = Static<typeof SandboxStatusSchema>;
export type SandboxPlacement = Static<typeof SandboxPlacementSchema>;
export type SandboxCrossing = Static<typeof SandboxCrossingSchema>;
export type SandboxRequestInfo = Static<typeof SandboxRequestInfoSchema>;

/** A command the sandbox refused, as the bash result reports it. */
export interface SandboxBlock {
  rule: "read-only" | "hidden" | "network" | "not-permitted";
  /** For the model and the card: what the sandbox blocked and how the user can allow it. */
  message: string;
  /** The output line that shows it. */
  evidence: string;
}

/** The sandbox part of a bash result's details. */
export interface BashSandboxDetails {
  placement: SandboxPlacement;
  kind: SandboxKind;
  /** Set when the command failed because the sandbox refused something. */
  blocked?: SandboxBlock;
  /** Why the command ran outside a sandbox (full auto, the user's choice, no sandbox here). */
  outsideReason?: string;
  /** Set when the command created (or rewrote) a git repository at the project's top or in a sub-folder (untrusted-repos.ts); `path` is the first. */
  createdRepository?: { path: string; message: string };
}
