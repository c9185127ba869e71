import { ChangeRequest, ChangeRequestContributor, SpaceState } from "./change-request.js";
import { Comment, CommentReply, Reaction } from "./comment.js";

export * from "./change-request.js";
export * from "./comment.js";

export const collaborationEntities = [ChangeRequest, ChangeRequestContributor, SpaceState, Comment, CommentReply, Reaction];
