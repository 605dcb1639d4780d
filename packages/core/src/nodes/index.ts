export { invalidCharIndex, joinPath, nameOf, parentOf, validateLockPath, validateNodeName, validatePath } from './paths.js';
export {
  PROTECTED_HEADER_LENGTH,
  PROTECTED_PREFIX,
  hasGuid,
  newProtectedName,
  protectionGuidOf,
  withoutProtection,
  type ProtectedName,
} from './protectedNames.js';
export { MAX_SEQUENCE, kindOf, sequenceOf, sortedChildren, withoutSequence, type QueueEntry } from './sequence.js';
export { nodeDataOf, REVOCATION_MARKER, isRevocationRequest } from './nodeData.js';
export { encodeOwnerData, parseOwnerData, type NodeOwner } from './ownerData.js';
