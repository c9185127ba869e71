import { all } from "../api";
import { Loaded, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

interface Organization {
  id: string;
  title: string;
}

/** The person's organizations. */
export default function Home({ session }: PageProps) {
  useTitle("Your organizations");
  const organizations = useLoad(() => all<Organization>("/v1/orgs"), "orgs");
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title">Your organizations</h1>
      <p class="muted">Signed in as {session?.user.displayName}.</p>
      <Loaded state={organizations}>
        {(items) =>
          items.length === 0 ? (
            <p>You are not a member of any organization yet. Ask for an invite link.</p>
          ) : (
            <ul class="cards">
              {items.map((organization) => (
                <li key={organization.id}>
                  <a href={`/o/${encodeURIComponent(organization.id)}/`}>{organization.title}</a>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}
