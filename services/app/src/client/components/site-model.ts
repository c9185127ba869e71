// What the sites pages read from the API (publishing's GitBook objects), and the words for them.

/** A site as `GET /v1/orgs/{org}/sites/{site}` answers it. */
export interface Site {
  object: "site";
  id: string;
  title: string;
  visibility: string;
  published: boolean;
  basename?: string;
  siteSpaces: number;
  permissions: { admin?: boolean };
  urls: { app: string; preview: string; published?: string };
}

export interface Space {
  id: string;
  title: string;
}

export interface SiteSpace {
  object: "site-space";
  id: string;
  path: string;
  title: string;
  default: boolean;
  draft: boolean;
  space: Space;
  urls: { published?: string };
}

export interface SiteSection {
  object: "site-section";
  id: string;
  title: string;
  path: string;
  default: boolean;
  draft: boolean;
  sectionGroup?: string;
  siteSpaces: SiteSpace[];
  urls: { published?: string };
}

export interface SiteSectionGroup {
  object: "site-section-group";
  id: string;
  title: string;
  draft: boolean;
  sections: SiteSection[];
  children: StructureItem[];
}

export interface SiteExternalLink {
  object: "site-external-link";
  id: string;
  title: string;
  url: string;
}

export type StructureItem = SiteSection | SiteSectionGroup | SiteExternalLink;

/** `GET …/sites/{site}/structure`: site-spaces at the root until the site has sections. */
export type SiteStructure = { type: "siteSpaces"; structure: SiteSpace[] } | { type: "sections"; structure: StructureItem[] };

export interface ShareLink {
  id: string;
  name: string;
  active: boolean;
  createdAt: string;
  urls: { published?: string };
}

/** The visibilities publishing accepts, and what each means for a reader. */
export const VISIBILITIES: { value: string; label: string; meaning: string }[] = [
  { value: "public", label: "Public", meaning: "anyone with the address reads it, and search engines may list it" },
  { value: "unlisted", label: "Unlisted", meaning: "anyone with the address reads it, but search engines are asked not to list it" },
  { value: "share-link", label: "Share links only", meaning: "only people given one of its share links read it" },
  { value: "visitor-auth", label: "Signed-in visitors", meaning: "only visitors your own sign-in sends with a signed token read it" },
];

/** A visibility's name for people. */
export function visibilityLabel(visibility: string): string {
  return VISIBILITIES.find((item) => item.value === visibility)?.label ?? visibility;
}
