import type { User } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime/core";
import type { PublicUrls } from "./urls.js";

export interface RestUser {
  object: "user";
  id: string;
  displayName: string;
  email: string;
  photoURL?: string;
  urls: { location: string };
}

export function toRestUser(user: User | undefined, urls: PublicUrls): RestUser {
  if (!user) throw new AppError("internal", "upstream answered without the user");
  const rest: RestUser = {
    object: "user",
    id: user.id,
    displayName: user.displayName,
    email: user.email,
    urls: { location: `${urls.api}/v1/users/${encodeURIComponent(user.id)}` },
  };
  if (user.photoUrl) rest.photoURL = user.photoUrl;
  return rest;
}
