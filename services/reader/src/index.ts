/** The reader's public surface (filled in as it is built). */
export type * from "./views/model.js";
