import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { variablesFrom } from "../domain/editing/page-input.js";
import { editDraft } from "./shared/drafts.js";
import type { RevisionDeps } from "../../deps.js";

/** Replaces the draft's revision variables; answers them as stored. */
export async function setVariables(
  em: EntityManager,
  input: { caller: CallerInput | undefined; draftId: string; variables: Record<string, string> },
  deps: RevisionDeps,
): Promise<Record<string, string>> {
  const variables = variablesFrom(input.variables, "variables");
  await editDraft(em, deps, input, () => Promise.resolve(), { variables });
  return variables;
}
