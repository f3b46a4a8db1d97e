/**
 * vitest setup (vite.config.ts `setupFiles`): the same Node platform as the
 * CLI, so shaders load from shaders/ on disk and Dawn finds SwiftShader when
 * VK_ICD_FILENAMES is not set; and the directories tests write into
 * (scratchDir.ts) removed after each test file.
 */
import { afterAll } from 'vitest';
import { installNodePlatform } from '../src/cli/nodePlatform.ts';
import { removeScratchDirs } from './scratchDir.ts';

installNodePlatform();

afterAll(removeScratchDirs);
