// Small content rules shared by the request converters.
import type { Model } from "../../shared/agent-types.ts";

export function imagesAllowed(model: Model): boolean {
  return model.input.includes("image");
}

/** Stands in for an image the model cannot take, so the model knows something was there. */
export function omittedImageText(model: Model): string {
  return `(An image was omitted: ${model.name} does not accept images.)`;
}

export function dataUrl(image: { data: string; mimeType: string }): string {
  return `data:${image.mimeType};base64,${image.data}`;
}
