import assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import { decodeLegacyText } from '../../../../src/backend/convert/encoding';

/** Short samples, a few words each, as a CSV or a note in that encoding holds them (iconv-lite encodes them). */
const SAMPLES: [encoding: string, text: string][] = [
  ['EUC-KR', '이름,도시\n김민수,서울\n'],
  ['EUC-KR', '가격,수량\n사과,120\n'],
  ['EUC-KR', '제품,가격\n노트북,1200\n'],
  ['EUC-KR', '오늘 날씨가 좋습니다'],
  ['EUC-KR', '회의는 내일 오전에 있습니다'],
  ['EUC-KR', '안녕하세요 감사합니다'],
  ['GB18030', '姓名,城市\n张伟,北京\n'],
  ['GB18030', '价格,数量\n苹果,120\n'],
  ['GB18030', '学生,学校\n李明,上海\n'],
  ['GB18030', '会议明天上午举行'],
  ['GB18030', '今天天气很好'],
  ['GB18030', '请在下周之前发送报告'],
  ['Shift_JIS', '商品名,価格\nりんご,120\n'],
  ['Shift_JIS', '会議は明日の午前です'],
  ['EUC-JP', '今日は天気がいいです'],
  ['Big5', '姓名,城市\n陳大文,台北\n'],
  ['Big5', '今天天氣很好'],
  ['Big5', '會議明天上午舉行'],
  ['windows-1252', 'Café,Größe\nNaïve “quote”,5€\n'],
  ['windows-1252', 'Prix,Quantité\nCafé crème,3€\n'],
  ['windows-1251', 'Привет, как дела? Цена,Количество'],
  ['windows-1253', 'Καλημέρα κόσμε'],
];

describe('backend: legacy text encodings of short samples', () => {
  for (const [encoding, text] of SAMPLES) {
    it(`${encoding}: ${JSON.stringify(text)}`, () => {
      const decoded = decodeLegacyText(iconv.encode(text, encoding));
      assert.equal(decoded.text, text, `read as ${decoded.encoding}`);
    });
  }

  it('says which encoding it read: EUC-KR and GB18030 by name, not another East Asian one', () => {
    assert.equal(decodeLegacyText(iconv.encode('이름,도시\n김민수,서울\n', 'EUC-KR')).encoding, 'EUC-KR');
    assert.equal(decodeLegacyText(iconv.encode('姓名,城市\n张伟,北京\n', 'GB18030')).encoding, 'GB18030');
  });
});
