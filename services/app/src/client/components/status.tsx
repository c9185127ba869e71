import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError } from "../api";

/** What people read for a failure: the API's message, else a generic one (never a stack). */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return "Something went wrong. Reload the page to try again.";
}

/** A failure, announced to screen readers as it appears. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  );
}

/** A success or a note, announced politely. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** The document's title: `<title> · Imprint`. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Imprint` : "Imprint";
  }, [title]);
}

/** Loads data once per `key`: `{data}` when done, `{error}` when refused, `{}` meanwhile; `reload` asks again. */
export function useLoad<T>(load: () => Promise<T>, key: string): { data?: T; error?: unknown; reload(): void } {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ data }),
      (error: unknown) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
  }, [key, round]);
  return { ...state, reload: () => setRound((value) => value + 1) };
}

/** The loading line, an error, or `children(data)`. */
export function Loaded<T>({ state, children }: { state: { data?: T; error?: unknown }; children: (data: T) => ComponentChildren }) {
  if (state.error !== undefined) return <ErrorMessage error={state.error} />;
  if (state.data === undefined) return <p class="loading">Loading…</p>;
  return <>{children(state.data)}</>;
}

/** `items` as a list of cards, each drawn by `children`; `empty` (a muted line) when there are none. */
export function CardList<T>({
  items,
  empty,
  keyOf,
  children,
}: {
  items: T[];
  empty: string;
  keyOf: (item: T) => string;
  children: (item: T) => ComponentChildren;
}) {
  if (items.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="cards">
      {items.map((item) => (
        <li key={keyOf(item)}>{children(item)}</li>
      ))}
    </ul>
  );
}

/** A change the page makes: the call, then what to tell people when it is done; resolves whether it was made. */
export type Change = (what: () => Promise<unknown>, done?: string) => Promise<boolean>;

/** Runs a page's changes (one at a time), then `after`; `status` says what happened, or the API's refusal. */
export function useChanges(after: () => void): { change: Change; busy: boolean; status: ComponentChildren } {
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState("");
  const [busy, setBusy] = useState(false);
  const change: Change = async (what, done = "") => {
    setBusy(true);
    setError(undefined);
    setNotice("");
    try {
      await what();
      setNotice(done);
      after();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const status = (
    <>
      <ErrorMessage error={error} />
      {notice ? <Notice>{notice}</Notice> : null}
    </>
  );
  return { change, busy, status };
}
