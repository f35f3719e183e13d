// Which page a hash route shows, and the navigation's sections.
import type { Me } from './app.js';
import { AgentDetail, Agents } from './pages/agents.js';
import { Analytics } from './pages/analytics.js';
import { Audit } from './pages/audit.js';
import { Billing } from './pages/billing.js';
import { Chainchat } from './pages/chainchat.js';
import { Chat } from './pages/chat.js';
import { CouncilLaunch, Councils } from './pages/councils.js';
import { DeviceApprove } from './pages/device-approve.js';
import { Escalations } from './pages/escalations.js';
import { MarketEdit } from './pages/market-edit.js';
import { MarketListing } from './pages/market-listing.js';
import { McpAuthorize } from './pages/mcp-authorize.js';
import { Marketplace } from './pages/marketplace.js';
import { Plugins } from './pages/plugins.js';
import { Projects } from './pages/projects.js';
import { ScheduleForm } from './pages/schedule-form.js';
import { Schedules } from './pages/schedules.js';
import { SessionLive } from './pages/session-live.js';
import { Sessions } from './pages/sessions.js';
import { WorkTasks } from './pages/work-tasks.js';
import { WorkflowEditorPage } from './pages/workflow-editor.js';
import { WorkflowDetail, Workflows } from './pages/workflows.js';

export const NAV: Array<[string, string]> = [
  ['sessions', 'Sessions'],
  ['chat', 'Chat'],
  ['agents', 'Agents'],
  ['projects', 'Projects'],
  ['councils', 'Councils'],
  ['schedules', 'Schedules'],
  ['workflows', 'Workflows'],
  ['work-tasks', 'Work tasks'],
  ['escalations', 'Approvals & questions'],
  ['marketplace', 'Marketplace'],
  ['chainchat', 'Chainchat'],
  ['analytics', 'Analytics'],
  ['billing', 'Billing and plan'],
  ['plugins', 'Plugins'],
  ['audit', 'Audit log'],
  ['device', 'Approve a device'],
];

export function pageFor(route: string[], me: Me) {
  const [section = 'sessions', id] = route;
  switch (section) {
    case 'sessions':
      return id ? <SessionLive id={id} /> : <Sessions />;
    case 'chat':
      return <Chat agentId={id} />;
    case 'agents':
      return id ? <AgentDetail id={id} me={me} /> : <Agents />;
    case 'projects':
      return <Projects />;
    case 'councils':
      return id === 'launch' && route[2] ? <CouncilLaunch id={route[2]} /> : <Councils />;
    case 'schedules':
      if (id === 'new') return <ScheduleForm key="new" />;
      return id ? <ScheduleForm key={id} id={id} /> : <Schedules />;
    case 'workflows':
      if (id === 'new') return <WorkflowEditorPage key="new" />;
      if (id && route[2] === 'edit') return <WorkflowEditorPage key={id} id={id} />;
      return id ? <WorkflowDetail id={id} runId={route[2]} /> : <Workflows />;
    case 'work-tasks':
      return <WorkTasks />;
    case 'escalations':
      return <Escalations />;
    case 'analytics':
      return <Analytics />;
    case 'marketplace':
      if (id === 'listing' && route[2]) return <MarketListing id={route[2]} me={me} />;
      if (id === 'new' || (id === 'edit' && route[2])) return <MarketEdit key={route[2] ?? 'new'} id={route[2]} />;
      return <Marketplace tab={id} />;
    case 'chainchat':
      return <Chainchat me={me} />;
    case 'billing':
      return <Billing me={me} />;
    case 'plugins':
      return <Plugins me={me} />;
    case 'audit':
      return <Audit me={me} />;
    case 'device':
      return <DeviceApprove me={me} code={id} />;
    case 'authorize':
      return <McpAuthorize me={me} id={id} />;
    default:
      return (
        <section class="page">
          <h1 id="page-title" tabIndex={-1}>Not found</h1>
          <p>Nothing is at this address. <a href="#/sessions">Go to the sessions</a>.</p>
        </section>
      );
  }
}
