/**
 * vitest setup (vite.config.ts `setupFiles`): the same Node platform as the
 * CLI, so shaders load from shaders/ on disk and Dawn finds SwiftShader when
 * VK_ICD_FILENAMES is not set.
 */
import { installNodePlatform } from '../src/cli/nodePlatform.ts';

installNodePlatform();
