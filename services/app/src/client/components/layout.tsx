import type { ComponentChildren } from "preact";
import type { Session } from "../api";
import { AccountMenu } from "./account-menu";

/** Every page's frame: a skip link, the header (home link, account menu) and the main landmark. */
export function Layout({
  session,
  setSession,
  children,
}: {
  session: Session | null;
  setSession: (session: Session | null) => void;
  children: ComponentChildren;
}) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <a class="brand" href="/">
          Imprint
        </a>
        {session ? <AccountMenu session={session} setSession={setSession} /> : null}
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/** Where a page is: links to the pages above it, the last item (this page) not a link. */
export function Breadcrumbs({ items }: { items: { label: string; href?: string }[] }) {
  return (
    <nav class="breadcrumbs" aria-label="Breadcrumb">
      <ol>
        {items.map((item, index) => (
          <li key={index}>{item.href && index < items.length - 1 ? <a href={item.href}>{item.label}</a> : <span aria-current="page">{item.label}</span>}</li>
        ))}
      </ol>
    </nav>
  );
}
