import { useEffect, useRef, useState } from "preact/hooks";
import { api, rememberCsrfToken, type Session } from "../api";
import { navigate } from "../navigation";
import { ErrorMessage } from "./status";

/**
 * Who is signed in, and what they can do about it: API tokens, sign out, sign out everywhere. A
 * disclosure button (Escape closes it and gives the focus back), every item a link or a button.
 */
export function AccountMenu({ session, setSession }: { session: Session; setSession: (session: Session | null) => void }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent && event.key !== "Escape") return;
      if (event instanceof MouseEvent && menu.current?.contains(event.target as Node)) return;
      if (event instanceof FocusEvent && menu.current?.contains(event.target as Node)) return;
      setOpen(false);
      if (event instanceof KeyboardEvent) button.current?.focus();
    };
    document.addEventListener("keydown", close);
    document.addEventListener("click", close);
    document.addEventListener("focusin", close);
    return () => {
      document.removeEventListener("keydown", close);
      document.removeEventListener("click", close);
      document.removeEventListener("focusin", close);
    };
  }, [open]);

  const signOut = async (everywhere: boolean) => {
    setError(undefined);
    try {
      await api("POST", everywhere ? "/v1/auth/sign-out-everywhere" : "/v1/auth/sign-out");
      rememberCsrfToken(undefined);
      setOpen(false);
      setSession(null);
      navigate("/sign-in");
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <div class="account-menu" ref={menu}>
      <button type="button" ref={button} aria-expanded={open} aria-controls="account-menu-items" onClick={() => setOpen(!open)}>
        <span class="visually-hidden">Account: </span>
        {session.user.displayName || session.user.email || "Account"}
      </button>
      <div id="account-menu-items" class="menu" hidden={!open}>
        <p class="signed-in-as">
          Signed in as <strong>{session.user.displayName}</strong>
          {session.user.email ? <span class="muted"> ({session.user.email})</span> : null}
        </p>
        <ul>
          <li>
            <a href="/account/tokens" onClick={() => setOpen(false)}>
              API tokens
            </a>
          </li>
          <li>
            <button type="button" onClick={() => void signOut(false)}>
              Sign out
            </button>
          </li>
          <li>
            <button type="button" onClick={() => void signOut(true)}>
              Sign out everywhere
            </button>
          </li>
        </ul>
        <ErrorMessage error={error} />
      </div>
    </div>
  );
}
