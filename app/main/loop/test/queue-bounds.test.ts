// The steering and follow-up queues are bounded together (agent.ts): by the number of messages,
// by their text (which every session state event carries again) and by their images' data.
// Beyond a bound, steer and followUp throw a ServiceError ("unavailable") that says why, and
// queue nothing; what was queued before stays and is delivered, in order.
import { describe, expect, it } from "vitest";
import type { AgentMessage, ImageContent } from "../../../shared/agent-types.ts";
import { ServiceError } from "../../../shared/errors.ts";
import { MAX_QUEUED_IMAGE_CHARS, MAX_QUEUED_MESSAGES, MAX_QUEUED_TEXT_CHARS } from "../agent.ts";
import { Agent, userMessage } from "../index.ts";
import { createScriptedModel } from "./scripted-model.ts";

function idleAgent(answers: number) {
  const scripted = createScriptedModel(Array.from({ length: answers }, (_, i) => ({ text: `answer ${i}` })));
  return { agent: new Agent({ model: scripted.model, streamFn: scripted.streamFn, tools: [] }), scripted };
}

const userTexts = (messages: AgentMessage[]) => messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : "[parts]"));

/** What `fn` threw, or a failure when it did not throw. */
function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("bounded steering and follow-up queues", () => {
  it(`takes ${MAX_QUEUED_MESSAGES} messages, steering and follow-ups together; the next is refused and the earlier ones are all delivered`, async () => {
    const { agent } = idleAgent(MAX_QUEUED_MESSAGES + 2);
    const half = MAX_QUEUED_MESSAGES / 2;
    for (let i = 0; i < half; i++) agent.steer(`steer ${i}`);
    for (let i = 0; i < half; i++) agent.followUp(`follow ${i}`);
    for (const refused of [() => agent.steer("one too many"), () => agent.followUp("one too many")]) {
      const error = thrown(refused);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({
        failure: "unavailable",
        message: `${MAX_QUEUED_MESSAGES} messages are already waiting for the agent: this one does not fit. Send it once the agent has taken some, or stop the run.`,
      });
    }
    expect(agent.queued.steering).toHaveLength(half);
    expect(agent.queued.followUp).toHaveLength(half);
    await agent.prompt("go");
    const expected = ["go", ...Array.from({ length: half }, (_, i) => `steer ${i}`), ...Array.from({ length: half }, (_, i) => `follow ${i}`)];
    expect(userTexts(agent.messages)).toEqual(expected);
    // Taken: there is room again.
    expect(() => agent.followUp("later")).not.toThrow();
  });

  it("bounds the text the queues hold (each state event sends it again): the largest messages fit four times, not five", () => {
    const { agent } = idleAgent(0);
    const largest = "t".repeat(MAX_QUEUED_TEXT_CHARS / 4);
    for (let i = 0; i < 4; i++) agent.steer(largest);
    expect(thrown(() => agent.followUp("x"))).toMatchObject({
      failure: "unavailable",
      message: "The messages waiting for the agent already hold 4.0 million characters of text: this one does not fit. Send it once the agent has taken some, or stop the run.",
    });
    expect(agent.queued.steering).toHaveLength(4);
    expect(agent.queued.followUp).toHaveLength(0);
  });

  it("bounds the images' data the queues hold", () => {
    const { agent } = idleAgent(0);
    // One string for every image: the test holds 16 MiB, the queue counts each image's data.
    const image: ImageContent = { type: "image", mimeType: "image/png", data: "A".repeat(MAX_QUEUED_IMAGE_CHARS / 4) };
    agent.steer(userMessage("two pictures", [image, image]));
    agent.followUp(userMessage("two more", [image, image]));
    expect(thrown(() => agent.followUp(userMessage("one small one", [{ type: "image", mimeType: "image/png", data: "AAAA" }])))).toMatchObject({
      failure: "unavailable",
      message: "The messages waiting for the agent already hold 64.0 MiB of images: this one does not fit. Send it once the agent has taken some, or stop the run.",
    });
    // Text alone still fits.
    expect(() => agent.followUp("and some words")).not.toThrow();
    expect(agent.queued.followUp).toHaveLength(2);
  });
});
