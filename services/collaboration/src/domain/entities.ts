import { ChangeRequest, ChangeRequestContributor, SpaceState } from "./change-request.js";
import { Comment, CommentReply, Reaction } from "./comment.js";
import { PendingMerge } from "./pending-merge.js";
import { RequestedReviewer, Review } from "./review.js";

/** Every entity of the collaboration database, for the ORM (the runtime adds its own tables). */
export const collaborationEntities = [
  ChangeRequest,
  ChangeRequestContributor,
  SpaceState,
  Comment,
  CommentReply,
  Reaction,
  PendingMerge,
  RequestedReviewer,
  Review,
];
