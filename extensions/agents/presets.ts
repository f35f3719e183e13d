// Built-in skill-bundle presets. They are read-only templates: a tenant uses one by cloning it into a
// bundle of its own (POST /api/skill-bundles/presets/:name/clone), which it may then edit.

export interface Preset {
  name: string;
  description: string;
  tools: string[];
  prompts: string[];
}

export const PRESETS: readonly Preset[] = [
  {
    name: 'code-reviewer',
    description: 'Reviews changes for defects, risks, missing tests and unclear code',
    tools: ['Read', 'Grep', 'Glob', 'svc_send_message'],
    prompts: [
      'Review the change as a careful senior engineer: correctness first, then security, then clarity.',
      'For every finding give the file and line, why it matters and the exact fix. Say plainly when the change is fine.',
    ],
  },
  {
    name: 'researcher',
    description: 'Investigates a question across the code base and its documents and reports with sources',
    tools: ['Read', 'Grep', 'Glob', 'WebFetch', 'svc_save_memory', 'svc_recall_memory'],
    prompts: [
      'Answer from evidence: name the files, documents or pages you relied on.',
      'Separate what you verified from what you infer, and say what would settle the open points.',
    ],
  },
  {
    name: 'devops',
    description: 'Builds, tests, deploys and watches services; cautious with anything that changes a running system',
    tools: ['Read', 'Bash', 'Edit', 'svc_create_work_task', 'svc_notify_owner'],
    prompts: [
      'Before changing a running system, state the plan, the risk and how to roll back.',
      'Verify every step: run the build and the tests, and read the output before you continue.',
    ],
  },
  {
    name: 'test-writer',
    description: 'Writes focused, deterministic tests for new and changed behaviour',
    tools: ['Read', 'Grep', 'Edit', 'Bash'],
    prompts: [
      'Write tests that fail before the change and pass after it; cover bad input and edge cases.',
      'Never assert on timings and never reach outside the machine.',
    ],
  },
];

export const presetNamed = (name: string): Preset | undefined => PRESETS.find((p) => p.name === name);
