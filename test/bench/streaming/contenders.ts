/**
 * How the streaming benchmark's contenders read a completion, shared by its worker and its CPU
 * profile: DocChat's client, and the floor (the least a correct client must do: one request, SSE
 * framing, JSON per event).
 */
import { createParser } from 'eventsource-parser';
import { request } from 'undici';
import type { GatewayClient } from '../../../src/api/gateway/client';

export type Consume = (onContent: (text: string) => void) => Promise<void>;

export const benchRequest = { model: 'bench-model', messages: [{ role: 'user' as const, content: 'Say a lot.' }], stream: true as const };

export function docchatConsumer(client: GatewayClient): Consume {
  return async (onContent) => {
    for await (const part of client.streamChatCompletion({ model: benchRequest.model, messages: benchRequest.messages })) {
      if (part.content) onContent(part.content);
    }
  };
}

export function floorConsumer(url: string): Consume {
  return async (onContent) => {
    const response = await request(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'api-key': 'bench-key' },
      body: JSON.stringify(benchRequest),
    });
    let done = false;
    const parser = createParser({
      onEvent(event) {
        if (event.data === '[DONE]') return void (done = true);
        const text = JSON.parse(event.data).choices?.[0]?.delta?.content;
        if (text) onContent(text);
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    if (!done) throw new Error('stream ended without [DONE]');
  };
}
