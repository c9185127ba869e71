import { callerMessage, isId, organizationStanding, requireCaller, requireOrganizationRole, type CallerInput } from "@imprint/runtime";

/** The caller and organization checks every context shares, from the runtime. */
export { callerMessage, isId, organizationStanding, requireCaller, requireOrganizationRole, type CallerInput };

/** The caller's standing in one organization (see organizationStanding). */
export interface Standing {
  member: boolean;
  admin: boolean;
}
