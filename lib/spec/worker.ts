// The tinypool worker: one batch of files per task, analysed off the main thread.
import { analyzeBatch } from './analyze.js';

export default analyzeBatch;
