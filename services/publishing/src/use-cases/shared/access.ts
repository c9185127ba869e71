import { callerMessage, isId, requireCaller, requireOrganizationRole, type CallerInput, type OrganizationCaller } from "@imprint/runtime";

/**
 * The caller and organization checks every context shares, from the runtime. Members (not guests)
 * see an organization's sites; admins change them ("Only organization admins can change sites").
 */
export { callerMessage, isId, requireCaller, requireOrganizationRole, type CallerInput, type OrganizationCaller };
