import { useTitle } from "../components/status";
import type { PageProps } from "../navigation";

/** A path that is none of the app's pages. */
export default function NotFound(_props: PageProps) {
  useTitle("Page not found");
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no such page. <a href="/">Go to your organizations</a>.
      </p>
    </section>
  );
}
