// The research extension: web search through a configured search API, a headless browser, and deep
// research summarised by the calling agent's own model.
import { runExtension } from '../../sdk/extension.js';
import { startResearch, stopResearch, tools } from './tools.js';

runExtension({ tools, setup: startResearch, shutdown: stopResearch });
