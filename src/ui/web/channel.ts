// The channel `dkc ui` found at start, asked of it once per page load (/ui/channel): undefined until it answers.

import { useEffect, useState } from 'preact/hooks';
import { getJSON } from '../live/http.js';
import type { ChannelAnswer, UiChannel } from '../model/assignment.js';

let asked: Promise<UiChannel> | undefined;

/** The answer, asked once; a server that cannot say is taken for the Node channel. */
function channelOnce(): Promise<UiChannel> {
  asked ??= getJSON<ChannelAnswer>('/ui/channel').then(
    (a) => a.channel,
    () => 'node' as const,
  );
  return asked;
}

export function useChannel(): UiChannel | undefined {
  const [channel, setChannel] = useState<UiChannel | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void channelOnce().then((c) => live && setChannel(c));
    return () => {
      live = false;
    };
  }, []);
  return channel;
}
