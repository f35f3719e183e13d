// Create or edit a schedule: when it runs (a cron expression in a time zone, previewed in words with
// its next runs, or an interval), what it does (one action or a list) and whether each run waits for
// the owner's approval. The API checks everything; what it refuses is shown beside the field it names.
import { useEffect, useState } from 'preact/hooks';
import { api, listOf } from '../api.js';
import { CronPreview } from '../components/cron-preview.js';
import { Card, ErrorNote, Field, Loading, Page, Select } from '../components/ui.js';
import { fieldErrors } from '../field-errors.js';
import { useGet } from '../hooks.js';
import { ActionList, actionOf, draftOf, shownKeys, type ActionDraft, type Choices } from './schedule-actions.js';

const UNITS: Array<[string, string]> = [['60', 'minutes'], ['3600', 'hours'], ['86400', 'days'], ['1', 'seconds']];
const TOP_FIELDS = ['name', 'description', 'cron', 'timezone', 'intervalSeconds', 'approval', 'approvalWindowSeconds', 'missedPolicy', 'enabled'];

interface Draft {
  name: string;
  description: string;
  mode: 'cron' | 'interval';
  cron: string;
  timezone: string;
  every: string;
  unit: string;
  approval: string;
  missedPolicy: string;
  enabled: boolean;
  actions: ActionDraft[];
}

const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

function draftFrom(s: any | undefined): Draft {
  if (!s) return { name: '', description: '', mode: 'cron', cron: '0 9 * * 1-5', timezone: localZone(), every: '1', unit: '3600', approval: '', missedPolicy: 'run_once', enabled: true, actions: [{ type: 'session' }] };
  const seconds = s.intervalSeconds ?? 3600;
  const unit = UNITS.find(([u]) => seconds % Number(u) === 0)?.[0] ?? '1';
  const actions = Array.isArray(s.actions) && s.actions.length ? s.actions : s.action ? [s.action] : [{ type: 'session' }];
  return {
    name: s.name ?? '', description: s.description ?? '', mode: s.cron ? 'cron' : 'interval', cron: s.cron ?? '', timezone: s.timezone ?? 'UTC',
    every: String(seconds / Number(unit)), unit, approval: s.approval ?? '', missedPolicy: s.missedPolicy ?? 'run_once', enabled: s.status !== 'paused' && s.enabled !== false, actions: actions.map(draftOf),
  };
}

/** The body the API takes: one action as `action`, several as `actions`. */
function bodyOf(d: Draft): Record<string, unknown> {
  const actions = d.actions.map(actionOf);
  return {
    name: d.name.trim(),
    description: d.description,
    ...(d.mode === 'cron' ? { cron: d.cron.trim(), timezone: d.timezone.trim(), intervalSeconds: null } : { cron: null, intervalSeconds: Math.round(Number(d.every) * Number(d.unit)) }),
    ...(d.approval ? { approval: d.approval } : {}),
    missedPolicy: d.missedPolicy,
    enabled: d.enabled,
    ...(actions.length === 1 ? { action: actions[0] } : { actions }),
  };
}

const pairs = (body: unknown, label: (r: any) => string): Array<[string, string]> => listOf(body).map((r: any) => [r.id, label(r)]);

export function ScheduleForm({ id }: { id?: string }) {
  const existing = useGet(id ? `/api/schedules/${encodeURIComponent(id)}` : null);
  if (!id) return <ScheduleEditor />;
  return <Loading loaded={existing}>{(s) => <ScheduleEditor schedule={s} />}</Loading>;
}

function ScheduleEditor({ schedule }: { schedule?: any }) {
  const [draft, setDraft] = useState<Draft>(() => draftFrom(schedule));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const agents = useGet('/api/agents?limit=200');
  const councils = useGet('/api/councils?limit=200');
  const workflows = useGet('/api/workflows?limit=200');
  const projects = useGet('/api/projects?limit=200');
  const choices: Choices = {
    agents: pairs(agents.data, (a) => a.name),
    councils: pairs(councils.data, (c) => c.name),
    workflows: pairs(workflows.data, (w) => w.name),
    projects: pairs(projects.data, (p) => p.name),
  };
  useEffect(() => setError(null), [schedule?.id]);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const errors = fieldErrors(error);
  const e = errors.byField;
  const general = errors.rest([...TOP_FIELDS, ...shownKeys(draft.actions)]);

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (schedule) await api('PUT', `/api/schedules/${encodeURIComponent(schedule.id)}`, bodyOf(draft));
      else await api('POST', '/api/schedules', bodyOf(draft));
      location.hash = '#/schedules';
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title={schedule ? `Edit schedule ${schedule.name}` : 'New schedule'}>
      <form onSubmit={save} noValidate>
        <ErrorNote error={general} />
        {error && !general && <p class="note error" role="alert">The server refused some fields; each says why below.</p>}
        <Card title="What and when">
          <div class="grid">
            <Field label="Name" value={draft.name} error={e.name} onInput={(ev) => set({ name: ev.currentTarget.value })} />
            <Field label="Description (optional)" value={draft.description} error={e.description} onInput={(ev) => set({ description: ev.currentTarget.value })} />
            <fieldset class="inline">
              <legend>Runs</legend>
              <label class="check"><input type="radio" name="mode" checked={draft.mode === 'cron'} onChange={() => set({ mode: 'cron' })} /> On a cron schedule</label>
              <label class="check"><input type="radio" name="mode" checked={draft.mode === 'interval'} onChange={() => set({ mode: 'interval' })} /> Every so often</label>
            </fieldset>
            {draft.mode === 'cron' ? (
              <>
                <Field label="Cron expression" value={draft.cron} error={e.cron} hint="minute hour day-of-month month day-of-week, e.g. 0 9 * * 1-5" spellcheck={false} onInput={(ev) => set({ cron: ev.currentTarget.value })} />
                <Field label="Time zone" value={draft.timezone} error={e.timezone} hint="IANA name, e.g. Europe/Berlin" onInput={(ev) => set({ timezone: ev.currentTarget.value })} />
                <CronPreview expression={draft.cron} timezone={draft.timezone} />
              </>
            ) : (
              <>
                <Field label="Every" type="number" min={1} value={draft.every} error={e.intervalSeconds} onInput={(ev) => set({ every: ev.currentTarget.value })} />
                <Select label="Unit" options={UNITS} value={draft.unit} onChange={(ev) => set({ unit: ev.currentTarget.value })} />
              </>
            )}
          </div>
        </Card>
        <Card title="Actions">
          <ActionList drafts={draft.actions} onChange={(actions) => set({ actions })} errors={e} choices={choices} />
        </Card>
        <Card title="Approval and missed runs">
          <div class="grid">
            <Select
              label="Approval"
              value={draft.approval}
              error={e.approval}
              hint="A work task or a DELETE route waits for approval unless you say otherwise"
              options={[['', 'As the action needs (default)'], ['auto', 'Run without asking'], ['owner_approve', 'The owner approves each run']]}
              onChange={(ev) => set({ approval: ev.currentTarget.value })}
            />
            <Select
              label="Runs missed while the server was down"
              value={draft.missedPolicy}
              error={e.missedPolicy}
              options={[['run_once', 'Run once'], ['skip', 'Skip them'], ['run_all', 'Run each of them']]}
              onChange={(ev) => set({ missedPolicy: ev.currentTarget.value })}
            />
            <label class="check"><input type="checkbox" checked={draft.enabled} onChange={(ev) => set({ enabled: ev.currentTarget.checked })} /> Enabled (runs on its schedule)</label>
          </div>
        </Card>
        <div class="actions">
          <button type="submit" class="btn btn-primary" disabled={busy}>{schedule ? 'Save schedule' : 'Create schedule'}</button>
          <a class="btn btn-plain" href="#/schedules">Cancel</a>
        </div>
      </form>
    </Page>
  );
}
