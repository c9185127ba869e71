import type { Member } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime/core";
import { toRestRole, type RoleName } from "./role.js";
import { toRestUser, type RestUser } from "./user.js";
import type { PublicUrls } from "./urls.js";

export interface RestMember {
  object: "member";
  id: string;
  role: RoleName | null;
  user: RestUser;
  disabled: boolean;
  joinedAt: string;
  lastSeenAt?: string;
  sso: boolean;
  spaces: number;
  teams: number;
  sites: number;
}

export function toRestMember(member: Member | undefined, urls: PublicUrls): RestMember {
  if (!member?.user) throw new AppError("internal", "upstream answered a member without its user");
  const rest: RestMember = {
    object: "member",
    id: member.user.id,
    role: toRestRole(member.role),
    user: toRestUser(member.user, urls),
    disabled: member.disabled,
    joinedAt: (member.joinedAt ?? new Date(0)).toISOString(),
    sso: member.sso,
    spaces: member.spaces,
    teams: member.teams,
    sites: member.sites,
  };
  if (member.lastSeenAt) rest.lastSeenAt = member.lastSeenAt.toISOString();
  return rest;
}
