// What the taint eviction controller writes and says, in kube's words (pkg/controller/tainteviction).

export const evictionTexts = {
  component: 'taint-eviction-controller',
  eventReason: 'TaintManagerEviction',
  marking: (key: string) => `Marking for deletion Pod ${key}`,
  cancelling: (key: string) => `Cancelling deletion of Pod ${key}`,
  reason: 'DeletionByTaintManager',
  conditionMessage: 'Taint manager: deleting due to NoExecute taint',
  failed: (key: string, why: string) => `deleting pod ${key} for its node's NoExecute taints failed: ${why}`,
};
