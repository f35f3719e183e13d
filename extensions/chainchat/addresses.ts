// Algorand addresses as the routes and commands take them.
import algosdk from 'algosdk';
import { validationError } from '../../protocol/errors.js';

export function mustBeAddress(value: string, field: string): string {
  if (!algosdk.isValidAddress(value)) throw validationError(`${field} must be an Algorand address (58 characters, checksummed), got "${value.slice(0, 80)}"`);
  return value;
}
