import { ApiToken } from "./api-token.js";
import { AuditEvent } from "./audit-event.js";
import { LinkInvite } from "./link-invite.js";
import { Member } from "./member.js";
import { Organization } from "./organization.js";
import { UserPassword } from "./password.js";
import { PasswordReset, Session } from "./session.js";
import { OidcProvider, OidcSignIn } from "./oidc-provider.js";
import { SamlAssertionUse, SamlProvider, SamlRequest } from "./saml-provider.js";
import { Team, TeamMember } from "./team.js";
import { User } from "./user.js";

/** Every entity of the identity database, for the ORM (the runtime adds its own tables). */
export const identityEntities = [
  Organization,
  User,
  Member,
  ApiToken,
  LinkInvite,
  Team,
  TeamMember,
  SamlProvider,
  SamlRequest,
  SamlAssertionUse,
  OidcProvider,
  OidcSignIn,
  AuditEvent,
  UserPassword,
  Session,
  PasswordReset,
];
