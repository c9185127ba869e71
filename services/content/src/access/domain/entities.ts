import { teamMembershipCopyEntities } from "@imprint/runtime";
import { TeamGrant } from "./team-grants.js";
import { UserGrant } from "./user-grants.js";

/** The access module's tables, for the ORM. */
export const accessEntities = [TeamGrant, UserGrant, ...teamMembershipCopyEntities];
