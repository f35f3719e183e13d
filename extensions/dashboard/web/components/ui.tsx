// The building blocks every page uses: page frame, labelled fields, buttons, tables, notes.
import type { ButtonHTMLAttributes, ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes, TextareaHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';
import type { Loaded } from '../hooks.js';

export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title" tabIndex={-1}>{title}</h1>
        {actions && <div class="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

export function Card({ title, children }: { title?: string; children: ComponentChildren }) {
  const id = useId();
  return (
    <section class="card" aria-labelledby={title ? id : undefined}>
      {title && <h2 id={id}>{title}</h2>}
      {children}
    </section>
  );
}

type FieldProps = { label: string; hint?: string; error?: string } & InputHTMLAttributes<HTMLInputElement>;

/** The hint and the API's complaint about a field, read out with it (aria-describedby). */
function Notes({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {error && <small id={`${id}-error`} class="field-error">{error}</small>}
    </>
  );
}

const described = (id: string, hint?: string, error?: string) =>
  ({ 'aria-describedby': [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined, 'aria-invalid': error ? true : undefined });

export function Field({ label, hint, error, ...input }: FieldProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} {...described(id, hint, error)} {...input} />
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextArea({ label, hint, error, ...input }: { label: string; hint?: string; error?: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} {...described(id, hint, error)} {...input} />
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function Select({ label, options, hint, error, ...input }: { label: string; options: Array<[string, string]>; hint?: string; error?: string } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...described(id, hint, error)} {...input}>
        {options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
      </select>
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function Button({ kind = 'primary', ...props }: { kind?: 'primary' | 'plain' | 'danger' } & ButtonHTMLAttributes<HTMLButtonElement>) {
  return <button type="button" class={`btn btn-${kind}`} {...props} />;
}

export function ErrorNote({ error }: { error: string | null | undefined }) {
  return error ? <p class="note error" role="alert">{error}</p> : null;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** What a GET shows while it loads or after it failed; the children once it has data. */
export function Loading<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorNote error={loaded.error.message} />;
  if (loaded.data === undefined) return <p class="loading" aria-busy="true">Loading…</p>;
  return <>{children(loaded.data)}</>;
}

export function Table({ caption, head, children }: { caption: string; head: string[]; children: ComponentChildren }) {
  return (
    // Focusable and named, so a table wider than the screen scrolls from the keyboard too.
    <div class="table-wrap" tabIndex={0} role="region" aria-label={`${caption} table`}>
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>{head.map((h) => <th key={h} scope="col">{h || <span class="sr-only">Actions</span>}</th>)}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

const TONES: Record<string, string> = {
  running: 'info', resumed: 'info', responding: 'info', discussing: 'info', reviewing: 'info', synthesizing: 'info', pending: 'warn',
  paused: 'warn', waiting: 'warn', awaiting_approval: 'warn', created: 'muted', completed: 'ok', done: 'ok', succeeded: 'ok', answered: 'ok',
  approve: 'ok', active: 'ok', trialing: 'ok', paid: 'ok', open: 'warn', past_due: 'bad', canceled: 'muted', reject: 'bad', abstain: 'muted',
  idle: 'ok', stopped: 'muted', timeout: 'warn', error: 'bad', failed: 'bad', aborted: 'muted', cancelled: 'muted', unloaded: 'muted', crashed: 'bad',
};

export function Status({ value }: { value: string | null | undefined }) {
  const text = value ?? 'unknown';
  return <span class={`badge badge-${TONES[text] ?? 'muted'}`}>{text.replace(/_/g, ' ')}</span>;
}

/** Credits from microUnits (millionths), without trailing zeros. */
export const micro = (units: number | null | undefined): string => (units === null || units === undefined ? '—' : (units / 1_000_000).toLocaleString('en', { maximumFractionDigits: 6 }));

/** Money as the API counts it (microUnits) shown with its unit. */
export const credits = (units: number | null | undefined): string => (units === null || units === undefined ? '—' : `${micro(units)} credits`);

/** A session's state as a person reads it: a running session waiting for its next message is idle. */
export const sessionState = (s: { status: string; busy?: boolean }): string => (s.status === 'running' && s.busy === false ? 'idle' : s.status);

export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

export const link = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join('/')}`;
