/**
 * Container consistency of a video (issue 30): what the MP4/MOV boxes (video.ts) and ffprobe say
 * about how the file was written. Editing tools name themselves in the encoder and handler names;
 * an edit list can play the media out of order or skip parts of it; a movie header modified long
 * after it was created, or a track created after the others, means the file was written again or
 * a track (a new soundtrack, a replaced video) was added later. Re-saving is not an edit by
 * itself: those signals share the `reencoding` group, as a photo editor's traces do (score.ts).
 */
import type { Signal } from './forensics/types.js';
import type { VideoMetadata } from './video.js';

/** Video editors and transcoders as they name themselves in encoder, handler and ©swr/©too fields. */
const EDITOR = /premiere|after effects|media encoder|final cut|imovie|davinci|resolve|handbrake|capcut|vegas|filmora|shotcut|kdenlive|openshot|avidemux|clipchamp|inshot|lightworks|camtasia|movavi|powerdirector|kinemaster/i;
/** FFmpeg's muxer and codec libraries (also inside many apps and share-sheet transcoders). */
const FFMPEG = /^(lavf|lavc)\d|ffmpeg/i;

export interface ProbedContainer {
  encoder: string | null;
  handlers: string[];
  stream_encoders: string[];
}

export function containerSignals(vm: VideoMetadata, probed: ProbedContainer | null): Signal[] {
  const out: Signal[] = [];
  const names = [
    ...(vm.software ? [`software ${vm.software}`] : []),
    ...(probed?.encoder ? [`encoder ${probed.encoder}`] : []),
    ...(probed?.stream_encoders ?? []).map((e) => `stream encoder ${e}`),
    ...(probed?.handlers ?? []).map((h) => `handler ${h}`),
  ];
  const editor = names.find((n) => EDITOR.test(n));
  const ffmpeg = names.find((n) => FFMPEG.test(n.replace(/^(software|encoder|stream encoder|handler) /, '')));
  if (editor)
    out.push({ analyzer: 'metadata.video_tools', kind: 'manipulation', probability: 0.35, confidence: 0.5, group: 'reencoding', flag: 'image_manipulated', finding: `The container names a video editor or transcoder (${editor}): the file was written by editing software, not as recorded` });
  else if (ffmpeg)
    out.push({ analyzer: 'metadata.video_tools', kind: 'manipulation', probability: 0.15, confidence: 0.35, group: 'reencoding', finding: `Written by FFmpeg's libraries (${ffmpeg}): re-muxed or re-encoded after recording (many apps and upload paths do this; not an edit by itself)` });
  else
    out.push({ analyzer: 'metadata.video_tools', kind: 'manipulation', probability: 0, confidence: 0.3, finding: names.length ? `No editing tool named (${names.slice(0, 4).join('; ')})` : 'No encoder or handler names in the container' });

  const ms = (iso: string | null): number => (iso ? Date.parse(iso) : NaN);
  const created = ms(vm.createdAt);
  const modified = ms(vm.modifiedAt);
  if (Number.isFinite(created) && Number.isFinite(modified) && modified - created > 60_000)
    out.push({ analyzer: 'metadata.video_times', kind: 'manipulation', probability: 0.15, confidence: 0.35, group: 'reencoding', flag: 'inconsistent_timestamps', finding: `The movie header was modified at ${vm.modifiedAt}, after its creation at ${vm.createdAt}: the file was written again later` });
  const trackTimes = vm.tracks.map((t) => ({ h: t.handler ?? '?', c: ms(t.createdAt) })).filter((t) => Number.isFinite(t.c));
  const base = Number.isFinite(created) ? created : Math.min(...trackTimes.map((t) => t.c));
  const later = trackTimes.filter((t) => t.c - base > 60_000);
  if (later.length && trackTimes.length > 1)
    out.push({ analyzer: 'metadata.video_tracks', kind: 'manipulation', probability: 0.35, confidence: 0.45, flag: 'image_manipulated', finding: `Track${later.length > 1 ? 's' : ''} created after the movie: ${later.map((t) => `${t.h} at ${new Date(t.c).toISOString()}`).join(', ')} (movie created ${new Date(base).toISOString()}): a track was added or replaced later` });

  const edited = vm.tracks.filter((t) => (t.edits?.filter(([, mt]) => mt !== -1).length ?? 0) > 1);
  if (edited.length)
    out.push({ analyzer: 'metadata.edit_list', kind: 'manipulation', probability: 0.2, confidence: 0.4, finding: `Edit list${edited.length > 1 ? 's' : ''} with several media segments (${edited.map((t) => `${t.handler ?? '?'}: ${t.edits!.length} entries`).join(', ')}): the player shows parts of the recorded media in another order or skips some (an editor's non-destructive cut)` });
  return out;
}
