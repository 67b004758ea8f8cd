import * as assert from 'node:assert/strict';
import { LOCAL_CHAT_MODEL as GATEWAY_LOCAL_MODEL, NO_PROJECT_CODE } from '../../../src/api/gateway/models';
import { hasProjectCode, ignoresSampling, LOCAL_CHAT_MODEL } from '../../../src/chatCore/modelTraits';

describe('model traits the chat panel reads', () => {
  it("names the gateway's own local model and no-project value", () => {
    assert.equal(LOCAL_CHAT_MODEL, GATEWAY_LOCAL_MODEL);
    assert.equal(hasProjectCode(NO_PROJECT_CODE), false);
    assert.equal(hasProjectCode(''), false);
    assert.equal(hasProjectCode('P-42'), true);
    assert.equal(ignoresSampling(GATEWAY_LOCAL_MODEL), true);
    assert.equal(ignoresSampling('alpha-5-mini'), false);
  });
});
