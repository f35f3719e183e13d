// The research extension: web search through a configured search API, a headless browser, and deep
// research summarised by the calling agent's own model.
import { runExtension } from '../../sdk/extension.js';
import { closeBrowser, tools } from './tools.js';

runExtension({ tools, shutdown: closeBrowser });
