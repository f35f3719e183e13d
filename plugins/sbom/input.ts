// What both SBOM formats are built from.
import type { LockedPackage } from '../../lib/lockfiles/lockfiles.js';

export interface SbomInput {
  /** The project's name (its folder's name, as the host reports it). */
  name: string;
  /** UTC, to the second (SPDX requires YYYY-MM-DDThh:mm:ssZ). */
  created: string;
  toolVersion: string;
  packages: LockedPackage[];
}
