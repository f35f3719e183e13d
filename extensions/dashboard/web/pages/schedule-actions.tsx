// The action(s) a schedule runs, as a list: each one's type and the fields that type takes (as the
// schedules API's schema defines them). One action is sent as `action`; more as `actions`.
import { Button, Field, Select, TextArea } from '../components/ui.js';

export type ActionDraft = Record<string, string> & { type: string };

export interface Choices {
  agents: Array<[string, string]>;
  councils: Array<[string, string]>;
  workflows: Array<[string, string]>;
  projects: Array<[string, string]>;
}

export const ACTION_TYPES: Array<[string, string]> = [
  ['session', 'Ask an agent (a session)'],
  ['council', 'Launch a council'],
  ['workflow', 'Run a workflow'],
  ['work_task', 'Start a work task'],
  ['route', 'Call an API route'],
];

/** The fields each type shows, as the API names them. */
export const ACTION_FIELDS: Record<string, string[]> = {
  session: ['agentId', 'prompt', 'projectId', 'timeoutMinutes'],
  council: ['councilId', 'prompt'],
  workflow: ['workflowId', 'input'],
  work_task: ['description', 'projectId', 'agentId'],
  route: ['method', 'path', 'body'],
};

/** A stored action as strings for the form (JSON fields written out). */
export function draftOf(action: Record<string, unknown>): ActionDraft {
  const draft: ActionDraft = { type: String(action.type ?? 'session') };
  for (const [key, value] of Object.entries(action)) {
    if (key !== 'type' && value !== undefined && value !== null) draft[key] = typeof value === 'object' ? JSON.stringify(value, null, 2) : String(value);
  }
  return draft;
}

/** The action the API takes from a draft: empty fields left out, numbers and JSON read. A JSON field that does not parse is sent as text, so the API names it. */
export function actionOf(draft: ActionDraft): Record<string, unknown> {
  const action: Record<string, unknown> = { type: draft.type };
  for (const key of ACTION_FIELDS[draft.type] ?? []) {
    const value = draft[key]?.trim();
    if (!value) continue;
    if (key === 'timeoutMinutes') action[key] = Number(value);
    else if (key === 'input' || key === 'body') {
      try {
        action[key] = JSON.parse(value);
      } catch {
        action[key] = value;
      }
    } else action[key] = key === 'prompt' || key === 'description' ? draft[key] : value;
  }
  return action;
}

const none = (label: string): [string, string] => ['', label];

function ActionFields({ draft, set, errors, choices, at }: { draft: ActionDraft; set: (d: ActionDraft) => void; errors: Record<string, string>; choices: Choices; at: string }) {
  const bind = (key: string) => ({ value: draft[key] ?? '', error: errors[`${at}.${key}`], onInput: (e: any) => set({ ...draft, [key]: e.currentTarget.value }) });
  const pick = (key: string) => ({ ...bind(key), onChange: (e: any) => set({ ...draft, [key]: e.currentTarget.value }) });
  switch (draft.type) {
    case 'session':
      return (
        <>
          <Select label="Agent" options={[none('— choose an agent —'), ...choices.agents]} {...pick('agentId')} />
          <Select label="Project (optional)" options={[none('— none —'), ...choices.projects]} {...pick('projectId')} />
          <TextArea label="Prompt" rows={3} {...bind('prompt')} />
          <Field label="Time limit, minutes (optional)" type="number" min={1} max={1440} {...bind('timeoutMinutes')} />
        </>
      );
    case 'council':
      return (
        <>
          <Select label="Council" options={[none('— choose a council —'), ...choices.councils]} {...pick('councilId')} />
          <TextArea label="Prompt" rows={3} {...bind('prompt')} />
        </>
      );
    case 'workflow':
      return (
        <>
          <Select label="Workflow" options={[none('— choose a workflow —'), ...choices.workflows]} {...pick('workflowId')} />
          <TextArea label="Input, JSON object (optional)" rows={3} {...bind('input')} />
        </>
      );
    case 'work_task':
      return (
        <>
          <TextArea label="Task description" rows={3} {...bind('description')} />
          <Select label="Project (optional)" options={[none('— none —'), ...choices.projects]} {...pick('projectId')} />
          <Select label="Agent (optional)" options={[none('— any —'), ...choices.agents]} {...pick('agentId')} />
        </>
      );
    default:
      return (
        <>
          <Select label="Method" options={['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m): [string, string] => [m, m])} {...pick('method')} />
          <Field label="Path" placeholder="/api/…" {...bind('path')} />
          <TextArea label="Body, JSON (optional)" rows={3} {...bind('body')} />
        </>
      );
  }
}

export function ActionList({ drafts, onChange, errors, choices }: { drafts: ActionDraft[]; onChange: (d: ActionDraft[]) => void; errors: Record<string, string>; choices: Choices }) {
  const setAt = (i: number, draft: ActionDraft) => onChange(drafts.map((d, j) => (j === i ? draft : d)));
  return (
    <div class="action-list">
      {drafts.map((draft, i) => (
        <fieldset key={i} class="grid">
          <legend>{drafts.length > 1 ? `Action ${i + 1}` : 'Action'}</legend>
          <Select
            label="What it does"
            options={ACTION_TYPES}
            value={draft.type}
            error={errors[`actions.${i}.type`]}
            onChange={(e) => setAt(i, { type: e.currentTarget.value, ...(e.currentTarget.value === 'route' ? { method: 'POST' } : {}) })}
          />
          <ActionFields draft={draft} set={(d) => setAt(i, d)} errors={errors} choices={choices} at={`actions.${i}`} />
          {drafts.length > 1 && <Button kind="danger" onClick={() => onChange(drafts.filter((_, j) => j !== i))}>Remove action {i + 1}</Button>}
        </fieldset>
      ))}
      <Button kind="plain" onClick={() => onChange([...drafts, { type: 'session' }])}>Add an action</Button>
    </div>
  );
}

/** The field keys the list shows, so complaints about others are shown above the form. */
export function shownKeys(drafts: ActionDraft[]): string[] {
  return drafts.flatMap((d, i) => [`actions.${i}.type`, ...(ACTION_FIELDS[d.type] ?? []).map((f) => `actions.${i}.${f}`)]);
}
