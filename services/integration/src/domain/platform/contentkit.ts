import { firstProblem, validatorOf } from "./schemas.js";
import type { PlainObject } from "./types.js";

/**
 * What a script answers a ui_render event with: GitBook's ContentKitRenderOutput, either an element
 * to show (with the component's state and props, as `@gitbook/runtime`'s createComponent answers)
 * or, after an action, `complete` with a value for the component that opened it. Imprint shows or
 * passes on only an answer that GitBook's schema accepts; anything else is the integration's fault,
 * reported with the path of its first problem.
 */
export type ContentKitRenderOutput =
  | { type?: "element"; element: PlainObject; state: PlainObject; props: PlainObject; canAccessVisitorClaims?: boolean }
  | { type: "complete"; returnValue?: PlainObject };

export type RenderOutputCheck = { ok: true; output: ContentKitRenderOutput } | { ok: false; problem: string };

const validate = {
  output: validatorOf("ContentKitRenderOutput"),
  element: validatorOf("ContentKitRenderOutputElement"),
  complete: validatorOf("ContentKitRenderOutputComplete"),
};

const isObject = (value: unknown): value is PlainObject => !!value && typeof value === "object" && !Array.isArray(value);

/** The script's answer, if GitBook's schema accepts it; else its first problem (`element.children[0].type: …`). */
export function checkRenderOutput(value: unknown): RenderOutputCheck {
  const valid: boolean = validate.output(value);
  if (valid) return { ok: true, output: value as ContentKitRenderOutput };
  // The output is one of two shapes told apart by `type` (absent means element): explain the
  // failure against the shape the script meant, not against both.
  const meant = isObject(value) && value.type === "complete" ? validate.complete : validate.element;
  const errors = meant(value) ? validate.output.errors : meant.errors;
  return { ok: false, problem: firstProblem(errors, "", "output") };
}
